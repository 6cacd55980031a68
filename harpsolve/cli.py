"""The ``harpsolve`` command line (click).

Every command turns the project's own errors into one clear line on stderr and
a non-zero exit (2 for bad input); nothing reaches the user as a traceback.
Heavy modules (numba kernels, pandas) are imported inside the commands that
need them, so ``harpsolve --help`` stays fast and never imports numba.
"""
from __future__ import annotations

import functools
import sys

import click

from . import __version__

EXIT_BAD_INPUT = 2


def _user_errors():
    from .cards import CardError
    from .layout import LayoutError
    from .rules import RulesError

    errs = [CardError, LayoutError, RulesError]
    try:
        from .deals import DealError

        errs.append(DealError)
    except ImportError:  # pragma: no cover - during bootstrap only
        pass
    try:
        from .reference import MoveError

        errs.append(MoveError)
    except ImportError:  # pragma: no cover
        pass
    return tuple(errs)


def fail(message: str, code: int = EXIT_BAD_INPUT):
    """Print one line on stderr and exit with ``code``."""
    click.echo(f"harpsolve: error: {message}", err=True)
    sys.exit(code)


def friendly(fn):
    """Turn project errors (and unreadable files) into one line and exit 2."""

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        try:
            return fn(*a, **kw)
        except _user_errors() as e:
            fail(str(e))
        except (OSError, UnicodeDecodeError) as e:
            fail(f"{getattr(e, 'filename', None) or ''} {e.strerror if isinstance(e, OSError) else e}".strip())

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="harpsolve")
def main():
    """Solve and study the Harp family of patience games and Baker's Game."""


if __name__ == "__main__":  # pragma: no cover
    main()
