// What a call resolves to, and how to see the response it came in. A resource method returns a native Promise of
// the parsed body (so `await` costs what awaiting any promise costs), with `.withResponse()` added for the final
// response and its request id, as openai-node's APIPromise has.
import { requestIdOf } from "./errors.js";

/** Filled in by the transport when a call succeeds. */
export interface ResponseSink {
  /** The final attempt's Response (after retries and redirects), its body already read. */
  response?: Response | undefined;
}

/** A call's parsed body with the response it came in. */
export interface WithResponse<T> {
  data: T;
  /**
   * The final attempt's Response (after retries and redirects): `status`, `headers`, `url`. Its body has been read
   * into `data`, so `response.json()` rejects.
   */
  response: Response;
  /** The `requestId` of the body, else the `x-request-id` header: quote it to support. */
  requestId: string | undefined;
}

/** The result of a resource method: `await` it for the data, or call `.withResponse()` for the response too. */
export interface APIPromise<T> extends Promise<T> {
  /** The data, the final attempt's Response and the request id. Costs nothing extra: the call is not sent again. */
  withResponse(): Promise<WithResponse<T>>;
}

/** `data` (a call's pending body) as an APIPromise, reading the response from `sink` once it is there. */
export function apiPromise<T>(data: Promise<T>, sink: ResponseSink): APIPromise<T> {
  const promise = data as APIPromise<T>;
  promise.withResponse = () =>
    data.then((value) => {
      const response = sink.response!;
      return { data: value, response, requestId: requestIdOf(value, response.headers) };
    });
  return promise;
}

/** A list envelope whose rows (`data`) may be of more than one shape: an analytics answer whose grouping is known only at run time. */
export type AnalyticsPage<Envelope extends { data: unknown[] }, Row> = Omit<Envelope, "data"> & { data: Row[] };
