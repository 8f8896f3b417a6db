"""What ``state:`` and ``bus:`` share: a block with one key, ``url``, naming an engine whose
password is only ever a ``${VAR}`` reference, shown with its credentials hidden."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import SplitResult, urlsplit

from pydantic import field_validator, model_validator

from hermes_core.config.checks import check_keys, fail, kind_of
from hermes_core.config.model_base import ConfigModel
from hermes_core.sanitize.urls import redact_url

__all__ = ["VARIABLE_REFERENCE", "EngineUrlConfig", "split_engine_url"]

#: A whole value that is one variable reference.
VARIABLE_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def split_engine_url(url: str, max_length: int) -> SplitResult | str:
    """*url*'s parts, or why it is no URL at all (a sentence that never quotes it)."""
    text = url.strip()
    if not text:
        return "must not be empty"
    if len(text) > max_length:
        return f"is longer than {max_length} characters"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return "holds control characters"
    try:
        parts = urlsplit(text)
        parts.password  # noqa: B018 - (a bad port or password raises here)
    except ValueError:
        return "is not a valid URL"
    return parts


class EngineUrlConfig(ConfigModel):
    """A block whose one key is ``url``; a subclass names the URL it wants (:attr:`NEEDS`,
    :attr:`KIND`) and checks it (:meth:`url_problem`)."""

    NEEDS: ClassVar[str] = "needs url:"
    """The error for a block without ``url``."""
    KIND: ClassVar[str] = "a URL"
    """What ``url`` must be, in words."""

    url: str

    @staticmethod
    def url_problem(url: str) -> str | None:
        """Why *url* cannot be this block's ``url`` (``None``: it can)."""
        return None

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise fail(f"must be a mapping with url: (got {kind_of(value)})")
        check_keys(value, ["url"])
        if "url" not in value:
            raise fail(cls.NEEDS)
        return value

    @field_validator("url", mode="before")
    @classmethod
    def _url(cls, value: object) -> str:
        if not isinstance(value, str):
            raise fail(f"must be {cls.KIND} (got {kind_of(value)})")
        problem = cls.url_problem(value)
        if problem is not None:
            raise fail(problem)
        return value.strip()

    def shown(self) -> str:
        """The URL as it may be shown: credentials and query hidden."""
        return redact_url(self.url)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(url={self.shown()!r})"

    __str__ = __repr__
