// A computer's name where its id is asked (`--computer build-box-eu-1`), as `gh` takes OWNER/REPO or a number. The
// spec gives ids no form of their own, so the value is looked up as an id first, then as a name; a name found is
// said on stderr with the id it stands for.
import { APIError, type Computer, type OrgAgent } from "../index.js";
import type { Context } from "./context.js";
import { CliError, EXIT } from "./errors.js";

/** The computer a value names, by id or else by name. */
export async function findComputer(context: Context, client: OrgAgent, value: string): Promise<Computer> {
  try {
    return await client.computers.get(value);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  let computer: Computer;
  try {
    computer = await client.computers.getByName(value);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    // Neither. A host that is not the API's answers 404 to any path: one more read, of a path every API host serves,
    // tells the two apart.
    if (!(await servesTheApi(client))) {
      throw new CliError(
        `no computer ${JSON.stringify(value)}, and ${context.origin ?? "the host"} answers 404 to the API's other paths too.`,
        EXIT.error,
        `Check the host in ${context.hostSource}: it does not seem to be the API's.`,
      );
    }
    throw new CliError(
      `no computer has the id or the name ${JSON.stringify(value)}.`,
      EXIT.error,
      "Check the id or name: both are case-sensitive.",
    );
  }
  context.out.note(`Using computer ${computer.id} (${computer.name}).`);
  return computer;
}

/** The id of the computer a value names (an id, or a name looked up). */
export async function computerId(context: Context, client: OrgAgent, value: string): Promise<string> {
  return (await findComputer(context, client, value)).id;
}

/** Whether the host serves the API at all: any answer but 404 to a path of the API's host (a 403 will do). */
async function servesTheApi(client: OrgAgent): Promise<boolean> {
  try {
    await client.enterpriseControls.history({ limit: 1 });
    return true;
  } catch (error) {
    return !isNotFound(error);
  }
}

function isNotFound(error: unknown): error is APIError {
  return error instanceof APIError && error.status === 404;
}
