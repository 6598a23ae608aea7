"""What every ``fakekube`` command's help shares: examples kept as written, defaults shown, warnings worded
alike. A leaf module (standard library only), so a command of any layer can use it."""

from __future__ import annotations

import argparse
import sys
import textwrap

_NO_DEFAULT = (None, False, [], "", argparse.SUPPRESS)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Prose paragraphs fit the terminal; examples (indented lines, or a paragraph that starts "examples:")
    keep their lines; every option's default is shown.

    ``ArgumentDefaultsHelpFormatter`` would print "(default: None)" for an option whose default is decided
    later, and a second default after a help that states its own: here a help that says "default" is left as
    written, and an option without a value of its own must say its default in words."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for paragraph in text.split("\n\n"):
            if paragraph.startswith(("examples:", " ")):
                paragraphs.append(textwrap.indent(paragraph, indent))
            else:
                paragraphs.append(textwrap.fill(" ".join(paragraph.split()), width, initial_indent=indent,
                                                subsequent_indent=indent))
        return "\n\n".join(paragraphs)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (not action.option_strings or action.default in _NO_DEFAULT or "default" in text
                or isinstance(action, argparse._VersionAction | argparse._HelpAction)):
            return text
        return f"{text} (default: %(default)s)"


def examples(*lines: str) -> str:
    """An epilog: each line a command (with a ``# why`` comment if it helps) under "examples:"."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def warn(command: str, text: str) -> None:
    """A flag combination that cannot do what it says: the command goes on, stderr says why."""
    print(f"fakekube {command}: warning: {text}", file=sys.stderr, flush=True)
