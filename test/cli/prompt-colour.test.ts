import { PassThrough } from "node:stream";
import { afterAll, expect, it } from "vitest";
import { inquirerPrompter } from "../../src/cli/prompts.js";

const saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

// One test in its own file: inquirer settles its colours when it first loads in a worker.
it("asks its questions without colour under --no-color, even where colour is forced", async () => {
  process.env.FORCE_COLOR = "1";
  delete process.env.NO_COLOR;
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const stderr = Object.assign(new PassThrough(), { isTTY: true });
  let shown = "";
  stderr.on("data", (chunk) => {
    shown += String(chunk);
  });
  const prompter = inquirerPrompter({ stdin, stdout: new PassThrough(), stderr }, false);
  const answer = prompter.input({ message: "Client business name" });
  setTimeout(() => stdin.write("Acme\n"), 50);
  expect(await answer).toBe("Acme");
  expect(shown).toContain("Client business name");
  // No SGR sequence (colour, bold, dim); cursor movements may stay.
  expect(shown).not.toMatch(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`));
});
