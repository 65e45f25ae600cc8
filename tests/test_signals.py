"""``sciml.signals.handling``: the handler over the block, the previous ones after it, nothing off the main thread."""
import signal
import threading

from sciml import signals


def test_the_handler_holds_inside_the_block_and_the_previous_ones_return():
    previous = {s: signal.getsignal(s) for s in signals.STOP_SIGNALS}
    handler = lambda signum, frame: None
    with signals.handling(handler):
        assert all(signal.getsignal(s) is handler for s in signals.STOP_SIGNALS)
    assert {s: signal.getsignal(s) for s in signals.STOP_SIGNALS} == previous


def test_nothing_changes_off_the_main_thread():
    previous, seen = {s: signal.getsignal(s) for s in signals.STOP_SIGNALS}, []

    def block():
        with signals.handling(lambda signum, frame: None):
            seen.append({s: signal.getsignal(s) for s in signals.STOP_SIGNALS})

    t = threading.Thread(target=block)
    t.start()
    t.join()
    assert seen == [previous]
