// The operation that tests add to a copy of the spec to show that adding one is one edit: `GET /api/v0/computers`, a
// list of `Computer` with `x-sdk` and `x-pagination`, its example three computers (the spec's own computer examples),
// so that a page size of 2 gives two pages; its responses as the spec's other operations have them (the shared error
// responses, X-Request-Id). No code sample: the reference generates them. Used by test/contract/adding-an-operation.test.ts (npm test) and
// test/new-operation/new-operation.e2e.ts (npm run test:new-operation).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { successExamples } from "./spec.js";

/** The computers of the new operation's example: the spec's examples of `getComputer`, each with an id of its own. */
export const exampleComputers = successExamples("getComputer").map(({ value }, i) => ({ ...value, id: `${value.id.slice(0, -1)}${i}` }));

export const LIST_COMPUTERS = `get:
  operationId: listComputers
  x-sdk:
    resource: computers
    method: list
  x-pagination:
    items: computers
    cursorParam: cursor
    limitParam: limit
    nextCursor: nextCursor
    hasMore: hasMore
  summary: List computers
  description: The organization's computers, a page at a time.
  tags:
    - Computers
  parameters:
    - name: limit
      in: query
      description: Computers per page.
      example: 2
      schema:
        type: integer
        minimum: 1
        maximum: 50
    - name: cursor
      in: query
      description: The nextCursor of the page before.
      example: "2"
      schema:
        type: string
        minLength: 1
  responses:
    '200':
      description: A page of computers.
      headers:
        X-Request-Id:
          $ref: ../components/headers/RequestId.yaml
      content:
        application/json:
          schema:
            title: ComputerList
            type: object
            required: [computers, hasMore]
            properties:
              computers:
                type: array
                items:
                  $ref: ../components/schemas/Computer.yaml
              hasMore:
                type: boolean
                description: Whether another page follows.
              nextCursor:
                type: [string, "null"]
                description: The cursor of the next page; null on the last page.
          examples:
            ComputerList:
              summary: Three computers
              value: ${JSON.stringify({ computers: exampleComputers, hasMore: false, nextCursor: null })}
    '400':
      $ref: ../components/responses/BadRequest.yaml
    '401':
      $ref: ../components/responses/Unauthorized.yaml
    '403':
      $ref: ../components/responses/Forbidden.yaml
    '429':
      $ref: ../components/responses/TooManyRequests.yaml
    '500':
      $ref: ../components/responses/InternalServerError.yaml
`;

/** The one edit, in a copy of the repository (or of openapi/ alone) at `dir`: the path file and its line in the root document. */
export function addListComputers(dir: string): void {
  writeFileSync(join(dir, "openapi/paths/api_v0_computers.yaml"), LIST_COMPUTERS);
  const rootDocument = join(dir, "openapi/openapi.yaml");
  writeFileSync(
    rootDocument,
    readFileSync(rootDocument, "utf8").replace(/^paths:\n/m, "paths:\n  /api/v0/computers:\n    $ref: paths/api_v0_computers.yaml\n"),
  );
}
