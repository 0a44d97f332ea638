// The baseline of the plan-catalogue benchmark: bare fastify answering one route with a fixed JSON body.
import Fastify from "fastify";

const body = process.env.BARE_BODY ?? "{}";
const app = Fastify({ logger: false });
app.get("/api/v1/plans", async (_request, reply) => reply.type("application/json").send(body));
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
process.stderr.write(
  `listening on http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}\n`,
);
