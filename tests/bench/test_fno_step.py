"""``sciml bench fno-step``: every variant is the same step (first losses agree) and the table has a row each."""
from cli_cases import TINY_DARCY, write_case
from sciml.bench import fno_step


def test_variants_are_timed_side_by_side(tmp_path, capsys):
    path = write_case(tmp_path, TINY_DARCY)
    code = fno_step.main(["--case", str(path), "--steps", "1", "--rounds", "1", "--set", "training.batch_size=4",
                          "--variant", "fft=model.spectral=fft",
                          "--variant", "dft-micro2=model.spectral=dft,training.micro_batch=2"])
    out = capsys.readouterr().out
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    assert set(rows) == {"fft", "dft-micro2"} and rows["fft"][2] == "1.00x"
    assert abs(float(rows["dft-micro2"][-1])) < 1e-5  # the first losses agree: the same step


def test_a_variant_reads_name_and_overrides():
    assert fno_step._variant("a=model.spectral=dft,training.micro_batch=2") == (
        "a", ["model.spectral=dft", "training.micro_batch=2"])
    assert fno_step._variant("base=") == ("base", [])
