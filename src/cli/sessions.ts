// `orgagent sessions create|get|send|wait|message`: agent sessions, and waiting on them with the SDK's waiters.
import { type Command, Option } from "commander";
import { readInput, type Context } from "./context.js";
import { computerId } from "./names.js";
import { RESOURCE_DEFAULT, RESOURCE_FORMATS, addOutputOptions, examples, type WithOutput } from "./options.js";
import { addWaitOptions, waitFor, type WaitFlags } from "./waiting.js";

export function sessionCommands(program: Command, context: Context): void {
  const sessions = examples(program.command("sessions").description("agent sessions and their messages"), [
    'orgagent sessions send SESSION_ID "Why is the encoder test flaky?" --wait',
  ]);
  const fields = {
    "body.computerId": "--computer",
    "body.cwd": "--cwd",
    "path.sessionId": "<sessionId>",
    "path.messageId": "<messageId>",
    "query.computerId": "--computer",
  };

  const create = sessions
    .command("create")
    .description("create a session on an active computer; prints it")
    .requiredOption("--computer <computer>", "computer to run on: its id, or its name (looked up; the id used is said on stderr)")
    .option("--cwd <path>", "working directory on the computer")
    .option("--model <model>", "model of the session");
  addOutputOptions(create, RESOURCE_FORMATS, RESOURCE_DEFAULT);
  examples(create, [
    "orgagent sessions create --computer build-box-eu-1",
    "orgagent sessions create --computer cmp_123 --cwd /srv/app --json sessionId",
  ]);
  create.action(async (flags: WithOutput<{ computer: string; cwd?: string; model?: string }>, cmd: Command) => {
    context.begin(cmd, fields);
    const client = context.client(cmd);
    const session = await client.sessions.create({
      computerId: await computerId(context, client, flags.computer),
      ...(flags.cwd !== undefined ? { cwd: flags.cwd } : {}),
      ...(flags.model !== undefined ? { sessionSettings: { model: flags.model } } : {}),
    });
    context.out.resource(session, flags);
  });

  const get = sessions
    .command("get")
    .description("show a session")
    .argument("<sessionId>")
    .option("--computer <computer>", "query this computer directly: its id or its name");
  addOutputOptions(get, RESOURCE_FORMATS, RESOURCE_DEFAULT);
  examples(get, ["orgagent sessions get sess_123", "orgagent sessions get sess_123 --json status,messageCount"]);
  get.action(async (sessionId: string, flags: WithOutput<{ computer?: string }>, cmd: Command) => {
    context.begin(cmd, fields);
    const client = context.client(cmd);
    const computer = flags.computer ? { computerId: await computerId(context, client, flags.computer) } : undefined;
    context.out.resource(await client.sessions.get(sessionId, computer), flags);
  });

  const send = sessions
    .command("send")
    .description("add a user message to a session; prints the message id and the agent status (with --wait: the idle session)")
    .argument("<sessionId>")
    .argument("<text...>", "message text; - reads standard input")
    .option("--computer <computer>", "route the message to this computer: its id or its name")
    .option("--wait", "wait until the agent has finished (the session is idle); the API lists no messages, so the reply is not shown");
  addWaitOptions(send, { timeout: 600 });
  addOutputOptions(send, RESOURCE_FORMATS, RESOURCE_DEFAULT);
  examples(send, [
    'orgagent sessions send sess_123 "make the build faster"',
    "git diff | orgagent sessions send sess_123 - --wait --timeout 900",
  ]);
  send.action(async (sessionId: string, words: string[], flags: WaitFlags & { computer?: string; wait?: boolean }, cmd: Command) => {
    context.begin(cmd, { ...fields, "body.text": "<text>" });
    const text = words.length === 1 && words[0] === "-" ? readInput("-") : words.join(" ");
    const client = context.client(cmd);
    const body = { text, ...(flags.computer ? { computerId: await computerId(context, client, flags.computer) } : {}) };
    const api = client.sessions;
    if (!flags.wait) return context.out.resource(await api.sendMessage(sessionId, body), flags);
    const sent = await waitFor(context, flags, `session ${sessionId}`, `orgagent sessions wait ${sessionId}`, (options) =>
      api.sendMessageAndWait(sessionId, body, options),
    );
    context.out.resource(sent, flags);
  });

  const wait = sessions
    .command("wait")
    .description("wait until a session is idle (its agent has finished), then print it")
    .argument("<sessionId>");
  addWaitOptions(wait, { timeout: 300 });
  addOutputOptions(wait, RESOURCE_FORMATS, RESOURCE_DEFAULT);
  examples(wait, ["orgagent sessions wait sess_123", "orgagent sessions wait sess_123 --timeout 900 --json status"]);
  wait.action(async (sessionId: string, flags: WaitFlags, cmd: Command) => {
    context.begin(cmd, fields);
    const api = context.client(cmd).sessions;
    context.out.resource(
      await waitFor(context, flags, `session ${sessionId}`, `orgagent sessions get ${sessionId}`, (options) =>
        api.waitUntilIdle(sessionId, options),
      ),
      flags,
    );
  });

  const message = sessions
    .command("message")
    .description("show one message of a session, by its id (the API lists no messages: `sessions send` gives the id of yours)")
    .argument("<sessionId>")
    .argument("<messageId>")
    .addOption(
      new Option("--format <format>", `output format; text: the message text only (default: ${RESOURCE_DEFAULT})`).choices([
        ...RESOURCE_FORMATS,
        "text",
      ]),
    )
    .addOption(new Option("--json [fields]", "JSON output; optionally only these comma-separated top-level fields").conflicts("format"));
  examples(message, ["orgagent sessions message sess_123 msg_456", "orgagent sessions message sess_123 msg_456 --format text"]);
  message.action(async (sessionId: string, messageId: string, flags: WithOutput<object>, cmd: Command) => {
    context.begin(cmd, fields);
    const found = await context.client(cmd).sessions.getMessage(sessionId, messageId);
    if (flags.format === "text") context.out.line(found.content.map((block) => block.text ?? "").join("\n"));
    else context.out.resource(found, flags);
  });
}
