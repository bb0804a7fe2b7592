// Preload for Node test peers (node --import ./loopback_only.mjs server.js ...): a server that
// calls listen(port) with no host would bind every interface; pin it to 127.0.0.1 instead.
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  const isPort = typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first));
  if (isPort && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
