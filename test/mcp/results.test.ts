// A failed call as a tool error: an argument the model sent is quoted in the error, whatever its shape, so that even
// an argument nested deeper than JSON can be written back gives a tool error naming it, not a protocol failure.
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../generated/mcp-tools.js";
import { ValidationError } from "../../src/index.js";
import { argumentOf } from "../../src/mcp/operation-tools.js";
import { failure } from "../../src/mcp/results.js";

describe("a ValidationError as a tool error", () => {
  it("quotes the value the argument had", () => {
    const result = failure(new ValidationError("query.limit", 500, "an integer from 1 to 100"), mcpTools.listAnalyticsUsers, argumentOf);
    expect(result).toEqual({
      isError: true,
      content: [{ type: "text", text: "Invalid argument limit: 500 is not allowed; expected an integer from 1 to 100. Nothing was sent." }],
    });
  });

  it("says what a value nested too deep to write back is", () => {
    const deep: unknown = JSON.parse("[".repeat(5000) + "]".repeat(5000));
    const result = failure(new ValidationError("query.startDate", deep, "a date"), mcpTools.getAnalyticsTokens, argumentOf);
    expect(result.content[0]!.text).toBe("Invalid argument startDate: an array is not allowed; expected a date. Nothing was sent.");
  });
});
