// Preload (`node -r tests/servers/require_auth.cjs <server>`): an HTTP server that wants auth.
// Every request's Authorization header is appended to $HERMES_TEST_AUTH_LOG ("-" when absent);
// a request whose header is not exactly $HERMES_TEST_REQUIRE_AUTH is answered 401 before the
// server sees it. Lets the tests see what headers server-everything really received.
const http = require("http");
const fs = require("fs");
const expected = process.env.HERMES_TEST_REQUIRE_AUTH || "";
const log = process.env.HERMES_TEST_AUTH_LOG || "";
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res, ...rest) {
  if (event === "request") {
    const got = req.headers["authorization"] || "";
    if (log) fs.appendFileSync(log, (got || "-") + "\n");
    if (expected && got !== expected) {
      res.writeHead(401, { "WWW-Authenticate": 'Bearer realm="hermes-test"' });
      res.end();
      return true;
    }
  }
  return emit.call(this, event, req, res, ...rest);
};
