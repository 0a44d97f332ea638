import { spawn } from "node:child_process";
import { join } from "node:path";
import autocannon from "autocannon";
import { cleanEnv, root, startService, stop, waitForLine } from "./support.js";

async function rps(
  url: string,
  token: string | null,
  seconds: number,
): Promise<{ rps: number; non2xx: number }> {
  const result = await autocannon({
    url: `${url}/api/v1/plans`,
    connections: 10,
    duration: seconds,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { rps: result.requests.average, non2xx: result.non2xx };
}

/** Requests per second of GET /api/v1/plans (auth, rate limit, validation) against bare fastify. */
export async function plansThroughput(seconds = 5) {
  const service = await startService(["--rate-limit", "100000000/1m"]);
  const body = await fetch(`${service.url}/api/v1/plans`, {
    headers: { authorization: `Bearer ${service.token}` },
  }).then((r) => r.text());
  const bare = spawn(
    process.execPath,
    [join(root, "node_modules", "tsx", "dist", "cli.mjs"), join(root, "bench", "bare-server.ts")],
    {
      env: cleanEnv({ BARE_BODY: body }),
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const bareUrl = await waitForLine(bare, /listening on (http:\/\/\S+)/);
  try {
    await rps(service.url, service.token, 1); // warm-up
    await rps(bareUrl, null, 1);
    const full = await rps(service.url, service.token, seconds);
    const baseline = await rps(bareUrl, null, seconds);
    return {
      name: "GET /api/v1/plans vs bare fastify",
      reseller_rps: Math.round(full.rps),
      bare_rps: Math.round(baseline.rps),
      ratio: Number((full.rps / baseline.rps).toFixed(2)),
      non_2xx: full.non2xx,
      goal: "ratio >= 0.5",
      pass: full.rps / baseline.rps >= 0.5 && full.non2xx === 0,
    };
  } finally {
    await stop(bare);
    await service.stop();
  }
}
