// `orgagent computers get|by-name|retry-install|wait`: the computers sessions run on.
import type { Command } from "commander";
import type { Context } from "./context.js";
import { computerId, findComputer } from "./names.js";
import { RESOURCE_DEFAULT, RESOURCE_FORMATS, addOutputOptions, examples, type WithOutput } from "./options.js";
import { addWaitOptions, waitFor, type WaitFlags } from "./waiting.js";

export function computerCommands(program: Command, context: Context): void {
  const computers = examples(program.command("computers").description("computers that sessions run on"), [
    "orgagent computers by-name build-box-eu-1",
    "orgagent computers retry-install gpu-box-1 && orgagent computers wait gpu-box-1",
  ]);
  const fields = { "path.computerId": "<computer>", "path.name": "<name>" };
  const COMPUTER = ["<computer>", "the computer's id, or its name (looked up; the id used is said on stderr)"] as const;
  const show = (
    name: string,
    description: string,
    argument: readonly [string, string],
    call: (id: string, cmd: Command) => Promise<object>,
    lines: string[],
  ) => {
    const command = computers
      .command(name)
      .description(description)
      .argument(...argument);
    addOutputOptions(command, RESOURCE_FORMATS, RESOURCE_DEFAULT);
    examples(command, lines);
    command.action(async (value: string, flags: WithOutput<object>, cmd: Command) => {
      context.begin(cmd, fields);
      context.out.resource(await call(value, cmd), flags);
    });
  };
  show("get", "show a computer, by id or name", COMPUTER, (value, cmd) => findComputer(context, context.client(cmd), value), [
    "orgagent computers get cmp_123",
    "orgagent computers get build-box-eu-1 --json status,provisioningSteps",
  ]);
  show(
    "by-name",
    "show a computer by name only",
    ["<name>", "the computer's name"],
    (name, cmd) => context.client(cmd).computers.getByName(name),
    ["orgagent computers by-name build-box-eu-1", "orgagent computers by-name build-box-eu-1 --json id | jq -r .id"],
  );
  show(
    "retry-install",
    "retry the install-dependencies step of a computer (accepted; follow it with `computers wait`)",
    COMPUTER,
    async (value, cmd) => {
      const client = context.client(cmd);
      return client.computers.retryInstallDeps(await computerId(context, client, value));
    },
    ["orgagent computers retry-install gpu-box-1 && orgagent computers wait gpu-box-1"],
  );

  const wait = computers
    .command("wait")
    .description("wait until a computer is active, then print it (exit 1 if it ends in error)")
    .argument(...COMPUTER);
  addWaitOptions(wait, { timeout: 900 });
  addOutputOptions(wait, RESOURCE_FORMATS, RESOURCE_DEFAULT);
  examples(wait, ["orgagent computers wait gpu-box-1", "orgagent computers wait cmp_123 --timeout 1800 --json status"]);
  wait.action(async (value: string, flags: WaitFlags, cmd: Command) => {
    context.begin(cmd, fields);
    const client = context.client(cmd);
    const id = await computerId(context, client, value);
    context.out.resource(
      await waitFor(context, flags, `computer ${value}`, `orgagent computers get ${value}`, (options) =>
        client.computers.waitUntilActive(id, options),
      ),
      flags,
    );
  });
}
