"""The browser step of an OAuth login: show the URL, open a browser, wait for the redirect.

The redirect comes back either to a one-shot HTTP listener on ``127.0.0.1`` or,
on an interactive terminal, as a pasted URL (the whole redirect URL, or just its
``?code=…&state=…`` part) — whichever arrives first.  Standard library only;
nothing here imports ``mcp``.
"""

from __future__ import annotations

import errno
import html
import os
import re
import select
import sys
import threading
import time
import webbrowser
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit, urlunsplit

from hermes_core.auth.errors import OAuthCallbackError, OAuthLoginRequired

__all__ = [
    "SKIP_WORDS",
    "BrowserFlow",
    "CallbackResult",
    "LoopbackListener",
    "open_browser",
    "parse_redirect",
    "stdin_is_tty",
]

#: Typed at the paste prompt, these give up on this server's login.
SKIP_WORDS = frozenset({"skip", "cancel", "s", "n", "no", "q", "quit"})
_POLL_SECONDS = 0.1
_URL_START = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


@dataclass(frozen=True)
class CallbackResult:
    """The parameters of an authorization redirect (RFC 6749 §4.1.2, RFC 9207 ``iss``)."""

    code: str | None = None
    state: str | None = None
    iss: str | None = None
    error: str | None = None
    error_description: str | None = None

    def __repr__(self) -> str:  # the code is a one-time secret: never shown
        return (
            f"CallbackResult(code={'***' if self.code else None}, "
            f"state={'***' if self.state else None}, iss={self.iss!r}, error={self.error!r})"
        )


def parse_redirect(text: str) -> CallbackResult | None:
    """The redirect parameters in *text*, or None when it carries neither ``code`` nor ``error``.

    *text* may be the whole redirect URL (local or not), a path with a query, the
    query string alone, or the query with its leading ``?``; surrounding quotes,
    angle brackets and whitespace are ignored.
    """
    cleaned = text.strip().strip("'\"<>").strip()
    if not cleaned:
        return None
    if _URL_START.match(cleaned) or cleaned.startswith("/"):
        query = urlsplit(cleaned).query
    else:
        query = cleaned[1:] if cleaned.startswith("?") else cleaned
        query = query.split("#", 1)[0]
    params = parse_qs(query, keep_blank_values=False)

    def first(name: str) -> str | None:
        values = params.get(name)
        return values[0] if values else None

    code, error = first("code"), first("error")
    if not code and not error:
        return None
    return CallbackResult(
        code=code,
        state=first("state"),
        iss=first("iss"),
        error=error,
        error_description=first("error_description"),
    )


def stdin_is_tty() -> bool:
    """Whether a person can answer on standard input (a terminal, and we can poll it)."""
    stream = sys.stdin
    try:
        return bool(stream is not None and stream.isatty() and os.name == "posix")
    except (AttributeError, ValueError, OSError):
        return False


def open_browser(url: str) -> str:
    """Try to open *url* in a local browser; never raises.  Returns a note for the user."""
    if os.environ.get("SSH_CLIENT") or os.environ.get("SSH_TTY"):
        return "Remote session (SSH): open the URL in a browser on your own machine."
    graphical = sys.platform in ("win32", "darwin") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )
    if not graphical:
        # Without a display, webbrowser would fall back to a text browser in this terminal.
        return "No graphical display detected: open the URL manually."
    try:
        opened = webbrowser.open(url, new=2)
    except Exception:  # noqa: BLE001 - a missing browser is never an error
        opened = False
    return (
        "Browser opened automatically."
        if opened
        else "Could not open a browser: open the URL manually."
    )


class LoopbackListener:
    """A one-shot HTTP listener on ``127.0.0.1:<port>`` that keeps the first redirect it sees."""

    def __init__(self, server: str, port: int) -> None:
        self.server_name = server
        self.port = port
        self.result: CallbackResult | None = None
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        listener = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 10  # a browser's idle pre-connection must not hold the listener

            def do_GET(self) -> None:
                found = parse_redirect(self.path)
                if found is None:
                    self._reply(404, "Not found", "This is Hermes's OAuth callback.")
                    return
                listener.offer(found)
                if found.error:
                    detail = found.error_description or found.error
                    self._reply(200, "Authorization Failed", f"The server said: {detail}")
                else:
                    self._reply(
                        200,
                        "Authorization Successful",
                        "You can close this tab and return to Hermes.",
                    )

            def _reply(self, status: int, title: str, text: str) -> None:
                body = (
                    "<!doctype html><meta charset='utf-8'>"
                    f"<title>{html.escape(title)}</title>"
                    f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>"
                ).encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the request line carries the authorization code: never logged

        try:
            httpd = _Server(("127.0.0.1", self.port), Handler)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                what = f"OAuth callback port {self.port} is already in use"
                advice = "Close any other login in progress, or set a free"
            else:
                what = f"cannot listen on 127.0.0.1:{self.port} ({exc.strerror or exc})"
                advice = "Set a free"
            raise OAuthCallbackError(
                f"MCP server '{self.server_name}': {what}. {advice} `oauth.redirect_port` "
                "in the server's config, then retry."
            ) from None
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": _POLL_SECONDS},
            name=f"oauth-callback-{self.port}",
            daemon=True,
        )
        self._thread.start()

    def offer(self, result: CallbackResult) -> None:
        """Keep *result* unless an earlier redirect (or paste) already won."""
        with self._lock:
            if self.result is None:
                self.result = result

    def close(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(2)
            self._thread = None


class _Server(ThreadingHTTPServer):
    block_on_close = False  # closing never waits for a browser's idle connection


class BrowserFlow:
    """The SDK's ``redirect_handler`` and ``callback_handler`` for one server."""

    def __init__(
        self,
        server: str,
        *,
        redirect_uri: str,
        listen_port: int | None,
        timeout: float,
        interactive: bool,
        browser: Callable[[str], Any] | None = None,
        out: TextIO | None = None,
        paste: bool | None = None,
        extra_params: Mapping[str, str] | None = None,
    ) -> None:
        self.server = server
        self.extra_params = dict(extra_params or {})
        self.redirect_uri = redirect_uri
        self.listen_port = listen_port
        self.timeout = timeout
        self.interactive = interactive
        self._browser = browser
        self._out = out
        self._paste = paste
        self._listener: LoopbackListener | None = None
        self._pasting = False
        self._partial = ""
        self._lines: list[str] = []
        self.waiting = False
        """True from showing the authorization URL until the login is over (see callback)."""

    # -- output ----------------------------------------------------------------------
    def _say(self, text: str) -> None:
        stream = self._out or sys.stderr
        print(text, file=stream, flush=True)

    # -- the SDK's handlers ------------------------------------------------------------
    async def redirect(self, authorization_url: str) -> None:
        """Start listening, then show the URL and open a browser (``redirect_handler``)."""
        if not self.interactive:
            raise OAuthLoginRequired(self.server, "no usable saved authorization")
        self._pasting = stdin_is_tty() if self._paste is None else self._paste
        if self.listen_port is None and not self._pasting:
            raise OAuthCallbackError(
                f"MCP server '{self.server}': the redirect URI is not on this machine and there "
                "is no terminal to paste it into; set `oauth.redirect_port` to the port your "
                "proxy forwards to, or run `hermes mcp login` in a terminal."
            )
        self._close()
        if self.listen_port is not None:
            listener = LoopbackListener(self.server, self.listen_port)
            listener.start()
            self._listener = listener
        self.waiting = True
        if self.extra_params:
            authorization_url = with_params(authorization_url, self.extra_params)
        try:
            self._announce(authorization_url)
        except BaseException:
            self.waiting = False
            self._close()
            raise

    def _announce(self, authorization_url: str) -> None:
        self._say(f"\nMCP server '{self.server}' needs authorization. Open this URL to approve:")
        self._say(f"\n  {authorization_url}\n")
        opener = self._browser or globals()["open_browser"]  # looked up late: tests replace it
        try:
            note = opener(authorization_url)
        except Exception:  # noqa: BLE001 - a browser problem never stops the login
            note = None
        if isinstance(note, str) and note:
            self._say(note)
        minutes = f"{self.timeout / 60:g} min" if self.timeout >= 60 else f"{self.timeout:g} s"
        if self._listener is not None:
            self._say(f"Waiting up to {minutes} for the redirect to {self.redirect_uri} …")
        ssh = bool(os.environ.get("SSH_CLIENT") or os.environ.get("SSH_TTY"))
        if ssh and self._listener is not None and _is_loopback(self.redirect_uri):
            port = self._listener.port
            self._say(
                "Browser on another machine? Paste the final URL below (its page will fail to "
                f"load; that is expected), or forward the port: ssh -N -L {port}:127.0.0.1:{port} "
                "<this host>"
            )
        if self._pasting:
            self._say(
                "Or paste the redirect URL here (or just its `?code=...&state=...` part) and "
                "press Enter. Type `skip` to give up on this server:"
            )

    async def callback(self) -> CallbackResult:
        """Wait for the redirect (``callback_handler``); the listener is closed afterwards.

        :attr:`waiting` stays set after a redirect came back: the code is still to be exchanged
        for tokens; whoever drives the whole login (the provider) clears it.
        """
        import anyio

        deadline = time.monotonic() + self.timeout
        try:
            while True:
                listener = self._listener
                if listener is not None and listener.result is not None:
                    return self._checked(listener.result)
                if self._pasting:
                    pasted = self._read_paste()
                    if pasted is not None:
                        if listener is not None:
                            listener.offer(pasted)
                            pasted = listener.result or pasted
                        return self._checked(pasted)
                if time.monotonic() >= deadline:
                    raise OAuthCallbackError(
                        f"OAuth login for MCP server '{self.server}' timed out after "
                        f"{self.timeout:g} s: no authorization code came back. Open the URL "
                        "shown above and approve access (or paste the redirect URL), then run "
                        f"`hermes mcp login {self.server}` again.",
                        timed_out=True,
                    )
                await anyio.sleep(_POLL_SECONDS)
        except BaseException:
            self.waiting = False
            raise
        finally:
            self._close()

    # -- helpers ---------------------------------------------------------------------
    def _checked(self, result: CallbackResult) -> CallbackResult:
        if result.error:
            detail = f": {result.error_description}" if result.error_description else ""
            raise OAuthCallbackError(
                f"OAuth authorization for MCP server '{self.server}' failed: {result.error}{detail}"
            )
        return result

    def _read_paste(self) -> CallbackResult | None:
        # Our own line buffer over the file descriptor: a buffered readline() could take two
        # lines at once and leave the second where select() no longer sees it.
        if not self._lines:
            try:
                fd = sys.stdin.fileno()
                ready, _, _ = select.select([fd], [], [], 0)
                if not ready:
                    return None
                chunk = os.read(fd, 65536)
            except (AttributeError, OSError, ValueError):
                self._pasting = False
                return None
            if not chunk:  # end of input
                self._pasting = False
                return None
            *complete, self._partial = (self._partial + chunk.decode(errors="replace")).split("\n")
            self._lines.extend(complete)
            if not self._lines:
                return None
        line = self._lines.pop(0)
        text = line.strip()
        if not text:
            return None
        if text.lower() in SKIP_WORDS:
            raise OAuthCallbackError(f"OAuth login for MCP server '{self.server}' skipped.")
        found = parse_redirect(text)
        if found is None:
            self._say(
                "That has no `code=` or `error=` in it; paste the whole URL from the "
                "browser's address bar (or its `?code=...&state=...` part):"
            )
        return found

    def _close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()


def with_params(url: str, params: Mapping[str, str]) -> str:
    """*url* with *params* added to its query (a parameter already there is replaced)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in params]
    return urlunsplit(parts._replace(query=urlencode([*query, *params.items()])))


def _is_loopback(uri: str) -> bool:
    host = (urlsplit(uri).hostname or "").lower()
    return host in ("127.0.0.1", "localhost", "::1")
