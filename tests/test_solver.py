"""The solver record's contract: every shipped solver's case schema gives what :class:`CaseConfig` names."""
import dataclasses

import pytest

from sciml.solver import CaseConfig
from sciml.solvers.fno import SOLVER as FNO
from sciml.solvers.pinn import SOLVER as PINN


def _members(protocol: type) -> set[str]:
    return {name for name, v in vars(protocol).items() if isinstance(v, property)}


def test_the_contract_names_what_the_front_doors_read():
    assert _members(CaseConfig) == {"case", "solver", "seed", "dtype", "parallel"}


@pytest.mark.parametrize("solver", [PINN, FNO], ids=lambda s: s.name)
def test_every_schema_gives_the_case_contract(solver):
    fields = {f.name for f in dataclasses.fields(solver.schema)}
    assert _members(CaseConfig) <= fields
