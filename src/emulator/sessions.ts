// Sessions and their messages. A session is `pending` while it starts, then works through the user messages one
// at a time (`running`), appending an assistant reply when each finishes, and is `idle` when nothing is left.
// Every status is derived from timestamps when read: no timers, and a test clock moves it exactly.
import type { CreateSessionRequest, Message, SendMessageRequest, Session, SessionStatus, TokenUsage } from "../../generated/openapi.js";
import type { Random } from "./random.js";

interface MessageRecord {
  readonly id: string;
  readonly replyId: string;
  readonly text: string;
  readonly attachments: number;
  readonly sentAt: number;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly blockId: string;
  readonly replyBlockId: string;
}

interface SessionRecord {
  readonly id: string;
  readonly computerId: string;
  readonly cwd: string | undefined;
  readonly settings: NonNullable<CreateSessionRequest["sessionSettings"]>;
  readonly createdAt: number;
  readonly readyAt: number;
  readonly messages: MessageRecord[];
}

export interface SessionTiming {
  /** How long a new session stays `pending`. */
  readonly startMs: number;
  /** How long the simulated agent works on each message before its reply appears. */
  readonly replyMs: number;
}

/** The id of the assistant reply to a user message: the emulator's convention, since the API lists no messages. */
export function replyIdOf(messageId: string): string {
  return `${messageId}_reply`;
}

export class Sessions {
  readonly #byId = new Map<string, SessionRecord>();
  readonly #random: Random;
  readonly #timing: SessionTiming;

  constructor(random: Random, timing: SessionTiming) {
    this.#random = random;
    this.#timing = timing;
  }

  newSessionId(): string {
    return `sess_${this.#random.chars(16)}`;
  }

  create(request: CreateSessionRequest, now: number): Session {
    const record: SessionRecord = {
      id: this.newSessionId(),
      computerId: request.computerId,
      cwd: request.cwd,
      settings: structuredClone(request.sessionSettings ?? {}),
      createdAt: now,
      readyAt: now + this.#timing.startMs,
      messages: [],
    };
    const session = view(record, now); // built first: a session that cannot be shown is not stored
    this.#byId.set(record.id, record);
    return session;
  }

  get(id: string, now: number): Session | undefined {
    const record = this.#byId.get(id);
    return record && view(record, now);
  }

  computerOf(id: string): string | undefined {
    return this.#byId.get(id)?.computerId;
  }

  /** Queues a user message; it starts when the session is ready and earlier messages are answered. */
  send(id: string, request: SendMessageRequest, now: number): { messageId: string; status: SessionStatus } | undefined {
    const record = this.#byId.get(id);
    if (!record) return undefined;
    const previous = record.messages.at(-1);
    const startedAt = Math.max(now, record.readyAt, previous?.finishedAt ?? 0);
    const messageId = `msg_${this.#random.chars(16)}`;
    record.messages.push({
      id: messageId,
      replyId: replyIdOf(messageId),
      text: request.text,
      attachments: (request.images?.length ?? 0) + (request.files?.length ?? 0),
      sentAt: now,
      startedAt,
      finishedAt: startedAt + this.#timing.replyMs,
      blockId: `blk_${this.#random.chars(12)}`,
      replyBlockId: `blk_${this.#random.chars(12)}`,
    });
    return { messageId, status: statusAt(record, now) };
  }

  /** A stored message: the user's from when it was sent, the assistant reply once the work on it finished. */
  message(id: string, messageId: string, now: number): Message | undefined {
    const record = this.#byId.get(id);
    if (!record) return undefined;
    for (const m of record.messages) {
      if (m.id === messageId) {
        return {
          id: m.id,
          role: "user",
          content: [{ id: m.blockId, text: m.text }],
          createdAt: m.sentAt,
          updatedAt: m.sentAt,
          userMessageSource: "sessions_api",
          visibility: "both",
          isUserVisible: true,
          isError: false,
        };
      }
      if (m.replyId === messageId && now >= m.finishedAt) {
        return {
          id: m.replyId,
          role: "assistant",
          content: [{ id: m.replyBlockId, text: replyText(m, record.cwd, this.#timing.replyMs) }],
          createdAt: m.finishedAt,
          updatedAt: m.finishedAt,
          parentId: m.id,
          visibility: "both",
          providerAPhase: "final_answer",
          isUserVisible: true,
          isError: false,
        };
      }
    }
    return undefined;
  }
}

function statusAt(record: SessionRecord, now: number): SessionStatus {
  if (now < record.readyAt) return "pending";
  // Messages are worked on one after another, so they are sorted by start: the one running now, if any, is the last
  // to have started (binary search: a session may hold tens of thousands of messages).
  const { messages } = record;
  let low = 0;
  let high = messages.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (messages[middle]!.startedAt <= now) low = middle + 1;
    else high = middle;
  }
  return low > 0 && now < messages[low - 1]!.finishedAt ? "running" : "idle";
}

function view(record: SessionRecord, now: number): Session {
  const status = statusAt(record, now);
  const answered = record.messages.filter((m) => m.finishedAt <= now);
  // The latest event that has happened (a loop: a spread of every event overflows the stack in a long session).
  let updatedAt = record.readyAt <= now ? Math.max(record.createdAt, record.readyAt) : record.createdAt;
  for (const m of record.messages) {
    updatedAt = Math.max(updatedAt, m.sentAt, m.startedAt <= now ? m.startedAt : 0, m.finishedAt <= now ? m.finishedAt : 0);
  }
  const usage = tokenUsage(answered);
  const first = record.messages[0];
  return {
    sessionId: record.id,
    ...(first ? { title: first.text.split("\n")[0]!.slice(0, 80) } : {}),
    status,
    messageCount: record.messages.length + answered.length,
    createdAt: record.createdAt,
    updatedAt,
    ...(status === "idle" && answered.length ? { completedAt: answered.at(-1)!.finishedAt } : {}),
    computerId: record.computerId,
    sessionSettings: {
      ...structuredClone(record.settings),
      ...(record.readyAt <= now ? { assistantActiveTimeMs: answered.reduce((t, m) => t + (m.finishedAt - m.startedAt), 0) } : {}),
      tokenUsage: usage,
      inclusiveTokenUsage: { ...usage },
    },
  };
}

/** Token usage of the answered messages, derived from their length so it is deterministic. */
function tokenUsage(answered: readonly MessageRecord[]): TokenUsage {
  const usage = { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0, thinkingTokens: 0, serviceCredits: 0 };
  answered.forEach((m, i) => {
    const input = 12_000 + m.text.length * 4 + m.attachments * 1_500;
    usage.inputTokens += input;
    usage.outputTokens += 300 + (m.text.length % 400);
    usage.cacheCreationTokens += i === 0 ? input : 800;
    usage.cacheReadTokens += i === 0 ? 0 : input - 800;
  });
  usage.serviceCredits = Math.round((usage.inputTokens + 4 * usage.outputTokens) / 1000) / 100;
  return usage;
}

function replyText(m: MessageRecord, cwd: string | undefined, replyMs: number): string {
  const request = m.text.length > 120 ? `${m.text.slice(0, 117)}...` : m.text;
  return [
    `Done: "${request}"${cwd ? ` in ${cwd}` : ""}.`,
    `This reply comes from the orgagent emulator, which runs no agent: every message is answered ${replyMs} ms after work on it starts.`,
  ].join("\n");
}
