"""User-facing errors: anything a user can cause by what they type or the files they hand us.

The CLI prints a :class:`UserError` as one line and exits with its ``exit_code`` (2; 3 for a training failure,
:class:`TrainingDiverged`); everything else is a bug and
keeps its traceback. :func:`warn` prints a one-line warning.
"""
import shlex
import sys


class UserError(Exception):
    """A mistake in input (case file, override, path, dataset) with a message meant for the user."""

    exit_code = 2


class ConfigError(UserError):
    """A problem at a dotted key of a case file: ``<file>: <key>: <message>``."""

    def __init__(self, message: str, key: str = "", source: str = ""):
        self.message, self.key, self.source = message, key, source
        super().__init__(self.render())

    def within(self, source: str, overrides=()) -> "ConfigError":
        """The same error, attributed to ``source`` if it names no file yet (``overrides``: the command
        line's ``key=value`` pairs, for errors that suggest a command)."""
        return self if self.source else ConfigError(self.message, self.key, source)

    def render(self) -> str:
        where = ": ".join(p for p in (self.source, self.key) if p)
        return f"{where}: {self.message}" if where else self.message


class MissingFile(ConfigError):
    """A file a case reads (``what`` at the case's ``key``) does not exist: names the ``sciml datagen`` command
    that makes it, with the case file and the command line's overrides once they are known (:meth:`within`)."""

    def __init__(self, what: str, path: str, key: str, source: str = "", overrides=()):
        self.what, self.path = what, path
        command = " ".join([source or "CASE.yaml", *(shlex.quote(o) for o in overrides)])
        super().__init__(f"{what} {path} does not exist; make it with `sciml datagen {command}`", key=key,
                         source=source)

    def within(self, source: str, overrides=()) -> "MissingFile":
        return self if self.source else MissingFile(self.what, self.path, self.key, source, overrides)


class Invalid(ValueError):
    """Raised by schema checks; ``key`` is relative to the section being checked."""

    def __init__(self, key: str, message: str):
        self.key, self.message = key, message
        super().__init__(f"{key}: {message}")


class TrainingDiverged(UserError):
    """A NaN or inf loss: the run stops, keeping its last good checkpoint; exit status 3 (not a typo's 2)."""

    exit_code = 3


class BadFile(UserError):
    """A file handed to us (checkpoint, export, dataset, fields, points) is missing, damaged or of another kind."""


class MissingExtra(UserError, ImportError):
    """An optional dependency is not installed: names the extra that brings it and the command that installs it
    (still an :class:`ImportError` to code that catches one)."""

    def __init__(self, what: str, extra: str, error: ImportError):
        super().__init__(f"{what} needs the optional extra '{extra}' (pip install 'sciml[{extra}]'): {error}")


def warn(message: str) -> None:
    """One line on stderr, ``warning: <message>``: something was wrong and the run goes on (e.g. a fallback)."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


class Interrupted(Exception):
    """Training stopped by a signal (SIGTERM, SIGINT) after writing its latest checkpoint and summary.

    ``exit_code`` is ``128 + signal number`` (143 for SIGTERM, 130 for SIGINT), as a shell reports a process
    ended by that signal; the message says where the checkpoint is and how to continue.
    """

    def __init__(self, message: str, signum: int, summary: dict | None = None):
        super().__init__(message)
        self.signum, self.exit_code, self.summary = signum, 128 + signum, summary
