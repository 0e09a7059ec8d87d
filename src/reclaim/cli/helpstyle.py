"""How `reclaim ... --help` reads: `-h` everywhere, and option types a user recognises.

Typer labels every option by its Python annotation (`<bool>` on a flag, `<list[str]>` on a
repeatable option, every choice in one wide cell). `polish` gives each parameter of a command
tree the labels click users know instead: nothing on a flag, TEXT / INTEGER / FLOAT / PATH, the
choices when they are short (otherwise the option's name, with the choices in its help), and
"(repeatable)" in the help of an option that may be given more than once.
"""

from __future__ import annotations

import inspect
import re
from types import MethodType
from typing import TYPE_CHECKING, TypeVar

from typer.core import TyperArgument, TyperOption

if TYPE_CHECKING:  # typer (0.2x on) runs on a click of its own: its commands, contexts and parameters are that click's
    from typer import _click as click

TyperParam = TyperOption | TyperArgument
P = TypeVar("P", bound="click.Parameter")

CONTEXT = {"help_option_names": ["-h", "--help"]}
WIDE_CHOICES = 16


NAMES = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "bool": "BOOLEAN"}


def _choices(param: TyperParam) -> list[str] | None:
    desc = param.type_descriptor
    return [str(getattr(c, "value", c)) for c in desc.choices or ()] if desc.is_choice else None


def _label(param: TyperParam) -> str:
    choices = _choices(param)
    if choices is not None:
        label = "|".join(choices)
        return label if len(label) <= WIDE_CHOICES else (param.name or "value").upper()
    if param.type_descriptor.is_path:
        return "PATH"
    bare = param.bare_type()
    bare = bare.removeprefix("list[").removesuffix("]")
    return NAMES.get(bare, bare.upper())


def _display_type(param: TyperParam, ctx: click.Context) -> str | None:
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    if isinstance(param, TyperOption) and param.metavar is not None:
        return param.metavar
    return _label(param)


def _extra_help(param: TyperParam) -> str:
    notes = []
    choices = _choices(param)
    if choices is not None and _label(param) != "|".join(choices):
        notes.append("one of " + ", ".join(choices))
    if isinstance(param, TyperOption) and param.type_descriptor.is_list and "repeatable" not in (param.help or ""):
        notes.append("repeatable")
    return f" ({'; '.join(notes)})" if notes else ""


def _fix_param(param: P) -> P:
    if isinstance(param, (TyperOption, TyperArgument)) and "display_type_rich" not in vars(param):
        _fix_typer_param(param)
    return param


def _fix_typer_param(param: TyperParam) -> None:
    # typer has no hook for a parameter's label: the parameter's own method is replaced
    param.display_type_rich = MethodType(_display_type, param)  # type: ignore[method-assign]
    if isinstance(param, TyperArgument) and param.metavar is None:
        param.metavar = (param.name or "value").upper()  # usage reads RUN_DIR, not {run_dir}
    if getattr(param, "is_flag", False) and param.default is False:
        param.secondary_opts = []  # a flag that is off unless given needs no --no-FLAG
    param.help = (param.help or "") + _extra_help(param)


def _paragraphs(text: str | None) -> str | None:
    """Docstring line breaks inside a paragraph are not line breaks on screen."""
    if not text:
        return text
    return "\n\n".join(re.sub(r"\s*\n\s*", " ", p.strip()) for p in inspect.cleandoc(text).split("\n\n"))


def polish(cmd: click.Command) -> click.Command:
    """Plain labels, whole paragraphs and -h for every command under `cmd`, once; returns `cmd`."""
    if "get_help_option" not in vars(cmd):
        plain = cmd.get_help_option

        def help_option(ctx: click.Context) -> TyperOption | None:
            option = plain(ctx)
            return option and _fix_param(option)

        # click has no hook for its -h/--help option: the command's own method is replaced
        cmd.get_help_option = help_option  # type: ignore[method-assign]
        cmd.help = _paragraphs(cmd.help)
        for param in cmd.params:
            _fix_param(param)
    for sub in getattr(cmd, "commands", {}).values():
        polish(sub)
    return cmd
