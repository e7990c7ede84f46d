"""A spec's JSON Schema errors as ``(path, message)`` problems that point at the mistake.

Every error of the file is reported.  Inside a ``oneOf``/``anyOf`` the branch the value
means is chosen, and every error of that branch is reported:

- a **discriminated** choice (each branch fixes one property with ``const``, as
  ``arguments.syntax`` does: the argument syntax registry writes one branch per syntax
  from its class's ``schema``) takes the branch that property names; its other
  properties are that branch's options, and an unknown or missing option is named with
  the options the branch allows (the closest one for a typo);
- otherwise the branches whose kind fits the value (an object for an object) are kept,
  and the one with the deepest error is taken.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from .diagnostics import Path, json_path

Problem = tuple[Path, str]


@dataclass(frozen=True)
class Branch:
    """The branch of a discriminated choice a value chose: ``key`` (at ``path``) is
    ``value``, and the branch allows ``options`` (``required`` among them)."""

    path: Path
    key: str
    value: str
    options: tuple[str, ...]
    required: tuple[str, ...]

    def named(self) -> str:
        """``arguments.syntax 'json_envelope'``."""
        return f"{json_path((*self.path, self.key))[2:]} {self.value!r}"

    def listed(self) -> str:
        """The options this branch allows, said after a problem with one."""
        if not self.options:
            return f"{self.named()} takes no options"
        required = [o for o in self.options if o in self.required]
        tail = f" (required: {', '.join(required)})" if required else ""
        return f"its options: {', '.join(self.options)}{tail}"


def schema_problems(spec: Mapping[str, Any], schema: Mapping[str, Any]) -> list[Problem]:
    """Every schema error of ``spec``, each where the mistake is."""
    validator = Draft202012Validator(schema)
    return [p for err in validator.iter_errors(spec) for p in _problems(err, None)]


def closest(word: str, choices: Sequence[str]) -> str:
    """`` (did you mean 'X'?)`` for the choice nearest ``word``, or ``""``."""
    near = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if near else ""


def _problems(err: ValidationError, branch: Branch | None) -> Iterator[Problem]:
    path = tuple(err.absolute_path)
    if err.validator in ("oneOf", "anyOf") and err.context:
        yield from _choice(err, path)
        return
    here = branch if branch is not None and path == branch.path else None  # its options
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = set(err.schema.get("properties", {}))
        for key in sorted(k for k in err.instance if k not in allowed):
            if here is not None:
                yield (*path, key), _unknown_option(key, here, err)
            else:
                yield (*path, key), _unknown_key(key, sorted(allowed))
        return
    if err.validator == "required":
        missing = err.message.split(" is a required property")[0].strip("'")
        if here is not None:
            yield path, f"{here.named()} requires option {missing!r}; {here.listed()}"
        else:
            yield path, f"{missing!r} is required"
        return
    if "propertyNames" in err.schema_path and isinstance(err.instance, str):
        # jsonschema reports the mapping; point at the offending key instead.
        yield (*path, err.instance), (f"key {err.instance!r} is not allowed here: "
                                      f"{err.message}")
        return
    if err.validator == "enum" and isinstance(err.instance, str):
        names = [v for v in err.validator_value if isinstance(v, str)]
        yield path, err.message + closest(err.instance, names)
        return
    yield path, err.message


def _choice(err: ValidationError, path: Path) -> Iterator[Problem]:
    """The errors of the branch of ``err``'s oneOf/anyOf that the value means."""
    branches: list[Mapping[str, Any]] = list(err.validator_value)
    by_branch: dict[int, list[ValidationError]] = {}
    for e in err.context or ():
        by_branch.setdefault(int(e.relative_schema_path[0]), []).append(e)
    key = _discriminator(branches)
    if key is not None and isinstance(err.instance, dict):
        yield from _discriminated(err, path, key, branches, by_branch)
        return
    fitting = {i: errs for i, errs in by_branch.items()
               if not any(_is_kind_mismatch(e) for e in errs)}
    if not fitting:
        kinds = sorted({str(e.validator_value) for e in err.context or ()
                        if e.validator == "type"})
        expected = f": expected {' or '.join(kinds)}" if kinds else ""
        yield path, f"{err.instance!r} is not valid here{expected}"
        return
    chosen = max(fitting.values(), key=lambda errs: max(len(e.absolute_path) for e in errs))
    for e in chosen:
        yield from _problems(e, None)


def _discriminated(err: ValidationError, path: Path, key: str,
                   branches: list[Mapping[str, Any]],
                   by_branch: dict[int, list[ValidationError]]) -> Iterator[Problem]:
    names = [str(b["properties"][key]["const"]) for b in branches]
    value = err.instance.get(key)
    where = json_path((*path, key))[2:]
    if value not in names:
        known = f"one of: {', '.join(names)}"
        if key not in err.instance:
            yield path, f"{key!r} is required ({known})"
        else:
            hint = closest(value, names) if isinstance(value, str) else ""
            yield (*path, key), f"unknown {where} {value!r}{hint}; {known}"
        return
    index = names.index(value)
    chosen = branches[index]
    options = tuple(k for k in chosen.get("properties", {}) if k != key)
    branch = Branch(path, key, value, options,
                    tuple(k for k in chosen.get("required", ()) if k != key))
    errors = by_branch.get(index, [])
    if not errors:  # (the branch fits: the choice failed otherwise)
        yield path, err.message
    for e in errors:
        yield from _problems(e, branch)


def _unknown_key(key: str, allowed: list[str]) -> str:
    """``unknown key 'K'``, with the closest allowed key (if one is close) and all."""
    if not allowed:
        return f"unknown key {key!r}"
    listed = f"expected one of: {', '.join(allowed)}"
    near = closest(key, allowed)
    return f"unknown key {key!r}{near}; {listed}" if near else f"unknown key {key!r} ({listed})"


def _unknown_option(option: str, branch: Branch, err: ValidationError) -> str:
    """An option the chosen branch does not allow: the closest it does, or the other
    branches that do allow it."""
    hint = closest(option, branch.options)
    message = f"unknown option {option!r} for {branch.named()}{hint}; {branch.listed()}"
    parent = err.parent
    if hint or parent is None:
        return message
    others = [repr(b["properties"][branch.key]["const"]) for b in parent.validator_value
              if option in b.get("properties", {})]
    if others:
        where = json_path((*branch.path, branch.key))[2:]
        message += f" ({option!r} is an option of {where} {' and '.join(others)})"
    return message


def _discriminator(branches: list[Mapping[str, Any]]) -> str | None:
    """The property every branch fixes with a distinct ``const``, if there is one."""
    if len(branches) < 2 or not all(isinstance(b, Mapping) for b in branches):
        return None
    first = branches[0].get("properties", {})
    for key in first:
        values = [b.get("properties", {}).get(key, {}).get("const") for b in branches]
        if all(isinstance(v, str) for v in values) and len(set(values)) == len(values):
            return key
    return None


def _is_kind_mismatch(err: ValidationError) -> bool:
    """An error saying the value is of another kind than a branch wants."""
    if err.relative_path:
        return False
    if err.validator == "type":
        return True
    return err.validator in ("enum", "const") and not isinstance(err.instance, str)
