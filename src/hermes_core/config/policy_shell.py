"""Looking through a shell started to run one command (``sh -c 'server --flag'``).

Only a script that is one simple command is followed: words, quotes, leading ``NAME=value``
assignments and an optional ``exec``.  Anything the shell would expand or decide at run time
(``$``, backquotes, globs, ``;``, pipes, redirections, ``eval`` …), a script file, commands read
from standard input, a login or interactive shell (which runs the user's profile) and an
environment that makes the shell run more (``BASH_ENV``, exported functions …) cannot be told.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from hermes_core.config.policy_step import Step, unjudged

__all__ = ["SHELLS", "shell_step", "simple_words"]

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash"})

# Unquoted, these make the shell decide at run time what the command is.
_SPECIAL = frozenset("|&;<>()$`\\*?[]{}!#~\"'\n\r")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Words that run something other than the command that follows them, or are syntax.
_NOT_FOLLOWED = frozenset(
    {
        ".", "source", "eval", "command", "builtin", "trap", "enable", "fc", "time", "coproc",
        "alias", "function", "if", "then", "else", "elif", "fi", "case", "esac", "for", "while",
        "until", "do", "done", "select", "let", "declare", "typeset", "local", "export",
        "readonly", "set", "shopt", "hash", "type", "noglob", "nocorrect", "autoload",
        "emulate", "zmodload", "[[", "]]", "{", "}", "!",
    }
)  # fmt: skip
# The environment a non-interactive shell reads more commands from.
_RUNS_MORE = ("BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "ZDOTDIR")
_LONG_FLAGS = frozenset(
    {"--noprofile", "--norc", "--posix", "--restricted", "--verbose", "--noediting", "--no-rcs"}
)


def shell_step(name: str, argv: tuple[str, ...], env: Mapping[str, str], cwd: str | None) -> Step:
    """What the shell *name* started as *argv* runs."""
    for key, value in env.items():
        if key in _RUNS_MORE or key.startswith("BASH_FUNC_") or value.startswith("()"):
            return unjudged(f"{key} in its environment makes the shell run more than its command")
    script_flag, no_rcs, operands = False, False, list(argv[1:])
    while operands:
        word = operands[0]
        if word in ("-", "--"):
            operands.pop(0)
            break
        if word.startswith("--"):
            if word not in _LONG_FLAGS:
                option = word.partition("=")[0]
                return unjudged(f"the shell option {option} is not one Hermes follows")
            no_rcs = no_rcs or word == "--no-rcs"
            operands.pop(0)
            continue
        if len(word) < 2 or word[0] not in "-+":
            break
        operands.pop(0)
        for letter in word[1:]:
            if letter == "c":
                script_flag = True
            elif letter in "oO":
                if not operands:
                    return unjudged(f"the shell option {word[0]}{letter} lacks its value")
                operands.pop(0)
            elif letter in "ils" and word[0] == "-":
                return unjudged(
                    "an interactive or login shell, or one reading standard input, runs more "
                    "than one command"
                )
            elif letter == "f":
                no_rcs = True
    if not script_flag:
        if operands:
            return unjudged(f"it runs the shell script {operands[0]!r}")
        return unjudged("the shell reads its commands from standard input")
    if name == "zsh" and not no_rcs:
        return unjudged("zsh runs the user's .zshenv first (start it with -f)")
    if not operands:
        return unjudged("-c is given no command")
    return _script_step(operands[0], env, cwd)


def _script_step(script: str, env: Mapping[str, str], cwd: str | None) -> Step:
    try:
        words = simple_words(script)
    except ValueError as exc:
        return unjudged(f"the shell command given to -c is not one plain command ({exc})")
    assigned = dict(env)
    while words and _ASSIGNMENT.match(words[0][0]) and words[0][1] > words[0][0].index("="):
        key, _, value = words.pop(0)[0].partition("=")
        assigned[key] = value
    argv = [text for text, _quote in words]
    if argv and argv[0] == "exec":
        argv.pop(0)
        if argv and argv[0].startswith("-"):
            return unjudged("exec is given options")
    if argv and argv[0] in _NOT_FOLLOWED:
        return unjudged(f"the shell command {argv[0]!r} runs what cannot be told beforehand")
    return Step(argv=tuple(argv), env=assigned, cwd=cwd)


def simple_words(script: str) -> list[tuple[str, int]]:
    """The words of *script* with where each first quote is (its length if none);
    ``ValueError`` (saying which character) when the script is more than words and quotes."""
    words: list[tuple[str, int]] = []
    text: str | None = None
    first_quote = 0
    i = 0
    while i < len(script):
        char = script[i]
        if char in " \t":
            if text is not None:
                words.append((text, first_quote if first_quote >= 0 else len(text)))
                text = None
            i += 1
            continue
        if text is None:
            text, first_quote = "", -1
        if char == "'" or char == '"':
            end = script.find(char, i + 1)
            if end < 0:
                raise ValueError(f"an unclosed {char}")
            inner = script[i + 1 : end]
            inside = next((c for c in "$`\\!" if c in inner), None) if char == '"' else None
            if inside is not None:
                raise ValueError(f"{inside!r} inside double quotes")
            if first_quote < 0:
                first_quote = len(text)
            text += inner
            i = end + 1
            continue
        if char in _SPECIAL:
            raise ValueError(f"{char!r}")
        text += char
        i += 1
    if text is not None:
        words.append((text, first_quote if first_quote >= 0 else len(text)))
    return words
