"""Where OAuth tokens live: ``$HERMES_HOME/mcp-tokens/<server>.json``, mode 0600.

One file per server holds the tokens, their absolute expiry, the DPoP key they are
bound to (when they are: :mod:`hermes_core.auth.dpop_key`), the client
registration and the authorization server's metadata.  It is only ever written
whole, when tokens were obtained (a login or a refresh succeeded): a client
registration or anything else learnt during a login that then fails stays in
memory, so a failed login never replaces working tokens.  Writes go to a
temporary file created with mode 0600 in the same folder (``O_CREAT|O_EXCL``),
are flushed to disk and then renamed over the old file, so the file is never
world-readable and never half-written; the folder is kept at 0700.

A file saved for another URL is ignored (a token is never sent to a server it
was not issued for); a damaged file is ignored with a warning that names the
file, never its contents.

**Names.**  Every server name gets its own file: a configured name
(``[A-Za-z0-9][A-Za-z0-9_.-]*``) is used as it is (``a.b.json`` and ``a_b.json``
are two files); any other name is cleaned and given ``~`` and 8 hex digits of
its SHA-256 (a character no configured name has).  Before 0.2 dots and other
characters became ``_``, so ``a.b`` and ``a_b`` shared ``a_b.json``: a file
found only under that old name is moved to the new one when the ``server``
recorded inside it is this server, and a file recorded for another server is
never used.

**Links.**  Nothing in ``mcp-tokens/`` is read, written or ``chmod``-ed through a
symbolic link: a token file that is a link (or not a regular file) is ignored
with a warning, and the folder's mode is only tightened when it is a real folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import secrets
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken
from pydantic import ValidationError

from hermes_core.auth.dpop_key import DPoPKey
from hermes_core.auth.token_backend import TokenBackend
from hermes_core.pgstate import StateUnavailable

__all__ = ["TOKEN_DIR", "TokenStorage", "safe_server_name", "token_path", "write_private"]

log = logging.getLogger(__name__)

TOKEN_DIR = "mcp-tokens"
_FORMAT = 1
_UNSAFE = re.compile(r"[^\w-]")


_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def safe_server_name(server: str) -> str:
    """*server* as a file name of its own: a configured name as it is, any other name cleaned
    (no separators, at most 128 characters) plus ``~`` and a hash of the name."""
    if _PLAIN_NAME.fullmatch(server):
        return server
    digest = hashlib.sha256(server.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{_legacy_name(server)[:119]}~{digest}"


def _legacy_name(server: str) -> str:
    """The file name before 0.2 (``a.b`` and ``a_b`` shared one)."""
    cleaned = _UNSAFE.sub("_", server).strip("_")[:128]
    return cleaned or "default"


def token_path(home: Path | str, server: str) -> Path:
    """``<home>/mcp-tokens/<server>.json``."""
    return Path(home).expanduser() / TOKEN_DIR / f"{safe_server_name(server)}.json"


def _private_dir(directory: Path) -> None:
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    if os.name == "posix":
        info = os.lstat(directory)
        if stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) & 0o077:
            os.chmod(directory, 0o700)  # a real folder (lstat), not a link


def _read_private(path: Path) -> bytes | None:
    """The bytes of the regular file *path*, never through a link; ``None`` when absent.

    A group- or world-readable file is tightened to 0600 through its descriptor.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if path.is_symlink():
            log.warning("ignoring OAuth token file %s: it is a symbolic link", path)
            return None
        raise exc
    with os.fdopen(fd, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            log.warning("ignoring OAuth token file %s: not a regular file", path)
            return None
        if os.name == "posix" and stat.S_IMODE(info.st_mode) & 0o077:
            with contextlib.suppress(OSError):
                os.fchmod(stream.fileno(), 0o600)
                log.warning("OAuth token file %s was readable by others; now 0600", path)
        return stream.read(_MAX_TOKEN_FILE_BYTES)


_MAX_TOKEN_FILE_BYTES = 1024 * 1024


def write_private(path: Path, data: bytes) -> None:
    """Replace *path* with *data* atomically; the file is 0600 from its first byte."""
    directory = path.parent
    _private_dir(directory)
    temporary = directory / f".{path.name}.{secrets.token_hex(6)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_BINARY", 0)
    fd = os.open(temporary, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    if os.name == "posix":
        with contextlib.suppress(OSError):
            dir_fd = os.open(directory, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)


def _same_server(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return True
    return a.rstrip("/") == b.rstrip("/")


class TokenStorage:
    """The SDK's ``TokenStorage`` protocol over one server's token file.

    *fresh* starts with nothing (what ``hermes mcp login`` uses: the file on disk
    is left alone until the new login succeeds).  *client* is a pre-registered
    client from config; it wins over a stored registration.
    """

    def __init__(
        self,
        home: Path | str,
        server: str,
        *,
        server_url: str | None = None,
        fresh: bool = False,
        client: OAuthClientInformationFull | None = None,
        backend: TokenBackend | None = None,
    ) -> None:
        """*backend*: where the document lives instead of the file (the state database,
        :mod:`hermes_core.auth.pg_tokens`)."""
        self.server = server
        self.path = token_path(home, server)
        self.backend = backend
        self.server_url = server_url
        self.saved = False
        """True once this object wrote tokens to disk."""
        self.metadata_source: Callable[[], OAuthMetadata | None] | None = None
        """Where to read the current authorization-server metadata when saving."""
        self._tokens: OAuthToken | None = None
        self._expires_at: float | None = None
        self._client: OAuthClientInformationFull | None = None
        self._metadata: OAuthMetadata | None = None
        self._dpop_jwk: dict[str, str] | None = None
        self._dpop_bound: str | None = None
        self._dpop_cache: tuple[dict[str, str] | None, DPoPKey] | None = None
        self._preregistered = client
        self._seen = self._stamp()
        if not fresh:
            self._load()
        if client is not None:
            self.set_preregistered(client)

    def __repr__(self) -> str:
        return (
            f"TokenStorage({self.server!r}, tokens={'yes' if self._tokens else 'no'}, "
            f"path={self.where!r})"
        )

    # -- the SDK's protocol ---------------------------------------------------------------
    async def get_tokens(self) -> OAuthToken | None:
        tokens = self._tokens
        if tokens is None:
            return None
        if self._expires_at is None:
            return tokens.model_copy()
        left = max(0, int(self._expires_at - time.time()))
        return tokens.model_copy(update={"expires_in": left})

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._tokens = tokens.model_copy()
        expires_in = tokens.expires_in
        self._expires_at = time.time() + int(expires_in) if expires_in is not None else None
        self._save()

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self._client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        # A registration that hands out a secret without naming how to send it: send it
        # in the body (what such servers expect), not nothing.
        if client_info.client_secret and client_info.token_endpoint_auth_method is None:
            client_info.token_endpoint_auth_method = "client_secret_post"
        self._client = client_info  # kept in memory; saved with the tokens it leads to

    # -- for the provider -------------------------------------------------------------
    @property
    def has_tokens(self) -> bool:
        return self._tokens is not None

    @property
    def expires_at(self) -> float | None:
        """When the stored access token expires (epoch seconds), if known."""
        return self._expires_at if self._tokens is not None else None

    @property
    def oauth_metadata(self) -> OAuthMetadata | None:
        return self._metadata

    @property
    def client_info(self) -> OAuthClientInformationFull | None:
        return self._client

    @property
    def preregistered(self) -> bool:
        return self._preregistered is not None

    # -- DPoP (hermes_core.auth.dpop) ---------------------------------------------------
    def dpop_key(self) -> DPoPKey:
        """This server's DPoP key: the saved one, else a new one (saved with the next tokens)."""
        cached = self._dpop_cache
        if cached is not None and cached[0] is self._dpop_jwk:
            return cached[1]
        key = None
        if self._dpop_jwk is not None:
            try:
                key = DPoPKey.from_private_jwk(self._dpop_jwk)
            except ValueError as exc:
                log.warning("ignoring the DPoP key in OAuth token file %s: %s", self.path, exc)
        if key is None:
            key = DPoPKey.generate()
            self._dpop_jwk = key.private_jwk()
            self._dpop_bound = None  # a token bound to another key is no use with this one
        self._dpop_cache = (self._dpop_jwk, key)
        return key

    def mark_dpop_bound(self, access_token: str) -> None:
        """*access_token* (about to be stored) is bound to :meth:`dpop_key`."""
        self._dpop_bound = _token_digest(access_token)

    def is_dpop_bound(self, access_token: str) -> bool:
        return self._dpop_bound is not None and self._dpop_bound == _token_digest(access_token)

    @property
    def holds_bound_token(self) -> bool:
        """Whether the stored access token is DPoP-bound (its refresh needs a proof too)."""
        tokens = self._tokens
        return tokens is not None and self.is_dpop_bound(tokens.access_token)

    def forget_client(self) -> None:
        """Drop a stored registration (in memory), e.g. one bound to another redirect URI."""
        if self._preregistered is None:
            self._client = None

    def reload_if_changed(self) -> bool:
        """Re-read the file if another process (``hermes mcp login``) replaced it."""
        stamp = self._stamp()
        if stamp == self._seen:
            return False
        self._seen = stamp
        if stamp is None:
            return False
        log.debug("MCP server '%s': token file changed on disk; reloading", self.server)
        self._tokens, self._expires_at, self._metadata = None, None, None
        self._dpop_jwk, self._dpop_bound = None, None
        if self._preregistered is None:
            self._client = None
        self._load()
        if self._preregistered is not None:
            self.set_preregistered(self._preregistered)
        return True

    def remove(self) -> None:
        """Delete the file (or the row) and forget everything (in memory too)."""
        if self.backend is not None:
            self.backend.remove()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._tokens, self._expires_at, self._metadata = None, None, None
        self._client = self._preregistered
        self._seen = None

    # -- file ----------------------------------------------------------------------------
    @property
    def where(self) -> str:
        """Where the tokens are kept, as it may be shown (the file, or the database's row)."""
        return self.backend.where if self.backend is not None else str(self.path)

    def refresh_lock(self) -> contextlib.AbstractAsyncContextManager[None]:
        """Held while tokens are refreshed: across processes with the state database (two
        replicas never spend one refresh token), nothing to hold with the file."""
        if self.backend is not None:
            return self.backend.refresh_lock()
        return contextlib.nullcontext()

    def _stamp(self) -> Any:
        if self.backend is not None:
            return self.backend.stamp()
        try:
            info = os.lstat(self.path)
        except OSError:
            return None
        return info.st_mtime_ns, info.st_size

    def _load(self) -> None:
        try:
            if self.backend is not None:
                raw = self.backend.read()
            else:
                self._migrate_legacy_file()
                raw = _read_private(self.path)
        except (OSError, StateUnavailable) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            log.warning("cannot read OAuth tokens at %s: %s", self.where, reason)
            return
        if raw is None:
            return
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
        except ValueError:
            log.warning("ignoring damaged OAuth token file %s (not valid JSON)", self.path)
            return
        owner = data.get("server")
        if isinstance(owner, str) and owner != self.server:
            log.warning(
                "ignoring OAuth tokens in %s: they were saved for server '%s', not '%s'",
                self.path,
                owner,
                self.server,
            )
            return
        if not _same_server(data.get("server_url"), self.server_url):
            log.warning(
                "ignoring OAuth tokens in %s: they were saved for another URL of '%s'; "
                "run `hermes mcp login %s`",
                self.path,
                self.server,
                self.server,
            )
            return
        tokens = self._part(data, "tokens", OAuthToken)
        expires_at = data.get("expires_at")
        self._tokens = tokens
        self._expires_at = float(expires_at) if isinstance(expires_at, int | float) else None
        self._client = self._part(data, "client_info", OAuthClientInformationFull)
        self._metadata = self._part(data, "oauth_metadata", OAuthMetadata)
        dpop = data.get("dpop")
        if isinstance(dpop, dict):
            key, bound = dpop.get("key"), dpop.get("bound")
            self._dpop_jwk = (
                {str(k): str(v) for k, v in key.items()} if isinstance(key, dict) else None
            )
            self._dpop_bound = bound if isinstance(bound, str) else None

    def _part(self, data: dict[str, Any], key: str, model: Any) -> Any:
        value = data.get(key)
        if value is None:
            return None
        try:
            return model.model_validate(value)
        except ValidationError as exc:
            fields = sorted({".".join(map(str, e["loc"])) or key for e in exc.errors()})
            log.warning(
                "ignoring '%s' in OAuth token file %s (bad fields: %s)",
                key,
                self.path,
                ", ".join(fields),
            )
            return None

    def _migrate_legacy_file(self) -> None:
        """Move this server's file from its name before 0.2, when it is this server's."""
        legacy = self.path.with_name(f"{_legacy_name(self.server)}.json")
        if legacy == self.path or os.path.lexists(self.path):
            return
        try:
            raw = _read_private(legacy)
            data = json.loads(raw) if raw is not None else None
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and data.get("server") == self.server:
            with contextlib.suppress(OSError):
                os.replace(legacy, self.path)
                log.info("MCP server '%s': token file moved to %s", self.server, self.path)

    def _save(self) -> None:
        if self.metadata_source is not None:
            current = self.metadata_source()
            if current is not None:
                self._metadata = current
        document: dict[str, Any] = {
            "format": _FORMAT,
            "server": self.server,
            "server_url": self.server_url,
            "saved_at": time.time(),
            "expires_at": self._expires_at,
            "tokens": _dump(self._tokens),
            "client_info": _dump(self._client),
            "oauth_metadata": _dump(self._metadata),
        }
        if self._dpop_jwk is not None:
            # The private key of the DPoP-bound tokens above: as secret as they are (0600).
            document["dpop"] = {"key": self._dpop_jwk, "bound": self._dpop_bound}
        encoded = json.dumps(document, indent=2).encode()
        if self.backend is not None:
            self.backend.write(encoded)
        else:
            write_private(self.path, encoded)
        self._seen = self._stamp()
        self.saved = True

    def set_preregistered(self, client: OAuthClientInformationFull) -> None:
        """Use the client from config (``oauth.client_id``); it wins over a stored one."""
        self._preregistered = client
        stored = self._client
        if stored is not None and stored.client_id != client.client_id:
            # Tokens issued to another client cannot be refreshed with this one.
            log.info(
                "MCP server '%s': the configured client_id differs from the stored one; "
                "stored tokens are not used",
                self.server,
            )
            self._tokens, self._expires_at = None, None
        self._client = client


def _token_digest(access_token: str) -> str:
    """What the file records of a bound access token (the token itself is in ``tokens``)."""
    return hashlib.sha256(access_token.encode("utf-8", "surrogatepass")).hexdigest()


def _dump(model: Any) -> Any:
    return None if model is None else model.model_dump(mode="json", exclude_none=True)
