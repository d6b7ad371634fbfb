// `client.sessions`: the generated methods (generated/resources.ts), and the waits over them. Which statuses end a
// wait comes from the spec (`x-status-lifecycle`).
import type * as api from "../generated/openapi.js";
import { Sessions as GeneratedSessions } from "../generated/resources.js";
import { statusLifecycles } from "../generated/spec-tables.js";
import { pollUntilSettled, requestOptionsOf, type WaitOptions } from "./core/wait.js";

export class Sessions extends GeneratedSessions {
  /**
   * Polls the session until it is idle and resolves to it; rejects with WaitTimeoutError (carrying the last
   * snapshot) after `options.timeout`. Which statuses are transient comes from the spec (`x-status-lifecycle`).
   */
  waitUntilIdle(sessionId: string, options?: WaitOptions<api.Session>): Promise<api.Session> {
    return pollUntilSettled(
      {
        poll: (request) => this.get(sessionId, undefined, request),
        status: (session) => session.status,
        lifecycle: statusLifecycles.SessionStatus,
        what: `session ${sessionId}`,
      },
      options,
    );
  }

  /**
   * Sends a user message, then waits until the session is idle again (the agent has answered). Resolves to the
   * message id and the idle session. The request options in `options` apply to the send and to every poll.
   */
  async sendMessageAndWait(
    sessionId: string,
    body: api.SendMessageRequest,
    options?: WaitOptions<api.Session>,
  ): Promise<{ messageId: string; session: api.Session }> {
    const { messageId } = await this.sendMessage(sessionId, body, requestOptionsOf(options));
    return { messageId, session: await this.waitUntilIdle(sessionId, options) };
  }
}
