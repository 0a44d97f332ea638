import { createServer } from "node:net";

/**
 * A port nothing listens on now, as the kernel hands one out: a port picked at random may be
 * one of the ephemeral ports other tests' connections hold at that moment.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
