// Preload (`node -r tests/servers/loopback.cjs <server>`): make listen(port) bind 127.0.0.1 only.
// It also catches a port given as a numeric string, which is what server-everything passes
// (`app.listen(process.env.PORT, cb)`). Used by the tests and the benchmarks.
const net = require("net");
const listen = net.Server.prototype.listen;
const isPort = (v) => typeof v === "number" || (typeof v === "string" && /^\d+$/.test(v));
net.Server.prototype.listen = function (...args) {
  if (isPort(args[0])) {
    const port = Number(args[0]);
    const rest = args.slice(1).filter((a) => typeof a !== "string");
    return listen.call(this, port, "127.0.0.1", ...rest);
  }
  if (args[0] && typeof args[0] === "object" && !args[0].path) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
