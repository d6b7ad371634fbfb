// Auto-pagination driven by each operation's `x-pagination` rule in the spec.
// `await list` gives the first page; `for await (const item of list)` every item; `.pages()` every page;
// `.toArray()` the items in an array; `.withResponse()` the first page with its response.
import { APIUserAbortError, OrgAgentError, isRecord } from "./errors.js";
import { checkItemCount } from "./options.js";
import type { JobRequestOptions } from "./request.js";
import type { APIPromise, WithResponse } from "./response.js";

/** The `x-pagination` extension of a list operation, as emitted into generated/spec-tables.ts. */
export interface PaginationRule {
  /** Property of the page that holds the items. */
  readonly items: string;
  /** Query parameter that takes the cursor of the next page. */
  readonly cursorParam: string;
  /** Query parameter that sets the page size. */
  readonly limitParam?: string;
  /** Dotted path of the next cursor in the page (cursor style). */
  readonly nextCursor?: string;
  /** Dotted path of the "more pages exist" flag in the page (cursor style). */
  readonly hasMore?: string;
  /** Field of the last item that is the next cursor (no cursor field in the page). */
  readonly cursorFromLastItem?: string;
}

/** Options of a paginated call, on top of the usual request options. */
export interface PageOptions {
  /**
   * Stop after this many items: iterating items, `.pages()` and `.toArray()` stop there, and one cursor chain fetches
   * no page past it. Date windows (`concurrency`) fetch ahead in parallel, less than `maxItems` items and one page
   * past the pages handed on.
   */
  maxItems?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** Options of `.pages()`. */
export interface PagesOptions {
  /** Yield `{ data, response, requestId }` for each page instead of the page alone. */
  withResponse?: boolean | undefined;
}

/** Options of `.toArray()`. */
export interface ToArrayOptions {
  /** Collect at most this many items (and no more than the call's `maxItems`). Default: every item. */
  limit?: number | undefined;
}

/** The list ended in a way that would loop or that cannot be continued. */
export class PaginationError extends OrgAgentError {
  override name = "PaginationError";
}

/** Fetches one page; `options` add to (or replace) the call's own request options. */
export type FetchPage<Page> = (query: Record<string, unknown>, options?: JobRequestOptions) => APIPromise<Page>;

/** Fetches one page with the response it came in. */
export type FetchAnswer<Page> = (query: Record<string, unknown>) => Promise<WithResponse<Page>>;

/**
 * Where the pages come from when not from one cursor chain starting at the query (windows.ts: parallel date
 * windows). `chain` walks one cursor chain from a query with every check of `pages()`; `maxItems` is the most items
 * the caller takes (`maxItems`, or a smaller `toArray` limit), past which a source that reads ahead must not.
 */
export type PageSource<Page> = (
  fetchPage: FetchPage<Page>,
  chain: (query: Record<string, unknown>, fetch: FetchAnswer<Page>) => AsyncGenerator<WithResponse<Page>, void, undefined>,
  maxItems: number,
) => AsyncGenerator<WithResponse<Page>, void, undefined>;

/**
 * Consecutive pages without items that still say there is more, after which the list is taken to be broken: a
 * server handing out ever-new cursors on empty pages would otherwise be asked forever.
 */
export const MAX_EMPTY_PAGES = 3;

export class PagePromise<Page, Item> implements PromiseLike<Page>, AsyncIterable<Item> {
  #first: APIPromise<Page> | undefined;

  constructor(
    private readonly rule: PaginationRule,
    private readonly query: Record<string, unknown>,
    private readonly fetchPage: FetchPage<Page>,
    private readonly options: PageOptions = {},
    private readonly source?: PageSource<Page>,
  ) {}

  /** The first page, fetched once however often it is awaited. */
  private first(): APIPromise<Page> {
    return (this.#first ??= this.fetchPage(this.query));
  }

  /** The first page with the response it came in and its request id (the same request as `await`). */
  withResponse(): Promise<WithResponse<Page>> {
    return this.first().withResponse();
  }

  then<A = Page, B = never>(
    onFulfilled?: ((page: Page) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.first().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page | B> {
    return this.first().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<Page> {
    return this.first().finally(onFinally);
  }

  /**
   * Every page, following the operation's paging rule, starting with the first, until the list ends or the pages
   * so far hold `maxItems` items (pages come whole: the last may hold more). With `{ withResponse: true }`, each
   * page comes as `{ data, response, requestId }`.
   */
  pages(options: PagesOptions & { withResponse: true }): AsyncGenerator<WithResponse<Page>, void, undefined>;
  pages(options?: PagesOptions & { withResponse?: false | undefined }): AsyncGenerator<Page, void, undefined>;
  pages(options?: PagesOptions): AsyncGenerator<Page | WithResponse<Page>, void, undefined>;
  pages({ withResponse = false }: PagesOptions = {}): AsyncGenerator<Page | WithResponse<Page>, void, undefined> {
    return this.pagesUpTo(this.options.maxItems ?? Infinity, withResponse);
  }

  /** The pages until they hold `max` items. */
  private async *pagesUpTo(max: number, withResponse: boolean): AsyncGenerator<Page | WithResponse<Page>, void, undefined> {
    if (max <= 0) return;
    const answers = this.source
      ? this.source(this.fetchPage, (query, fetch) => this.chain(query, fetch), max)
      : this.chain(this.query, (query) => (query === this.query ? this.first() : this.fetchPage(query)).withResponse());
    let count = 0;
    for await (const answer of answers) {
      yield withResponse ? answer : answer.data;
      count += itemsOf(answer.data, this.rule).length;
      if (count >= max) return;
    }
  }

  /** One cursor chain from `query`, each page with its response, checked for loops and endless empty pages. */
  private async *chain(query: Record<string, unknown>, fetch: FetchAnswer<Page>): AsyncGenerator<WithResponse<Page>, void, undefined> {
    const { rule } = this;
    const seen = new Set<string>();
    const initial = query[rule.cursorParam];
    if (typeof initial === "string") seen.add(initial);
    let empty = 0;
    for (;;) {
      const answer = await fetch(query);
      yield answer;
      const next = this.nextCursor(answer.data, query);
      if (next === undefined) return;
      empty = itemsOf(answer.data, rule).length ? 0 : empty + 1;
      if (empty >= MAX_EMPTY_PAGES) {
        throw new PaginationError(`${empty} pages in a row had no items but said there was more; stopping to avoid an endless list.`);
      }
      if (seen.has(next)) {
        throw new PaginationError(`The server returned cursor ${JSON.stringify(next)} twice; stopping to avoid a loop.`);
      }
      seen.add(next);
      this.throwIfAborted();
      query = { ...query, [rule.cursorParam]: next };
    }
  }

  /** Every item of every page, up to `maxItems`. */
  [Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    return this.items(this.options.maxItems ?? Infinity);
  }

  /** The items, up to `max`. */
  private async *items(max: number): AsyncGenerator<Item, void, undefined> {
    let count = 0;
    for await (const page of this.pagesUpTo(max, false) as AsyncGenerator<Page, void, undefined>) {
      for (const item of itemsOf<Item>(page, this.rule)) {
        this.throwIfAborted();
        yield item;
        if (++count >= max) return;
      }
    }
  }

  /**
   * The items in an array: every item, or the first `limit` (and at most `maxItems`); one chain fetches no page past
   * them, and date windows read ahead within them as for `maxItems`.
   */
  async toArray({ limit = Infinity }: ToArrayOptions = {}): Promise<Item[]> {
    checkItemCount("options.limit", limit);
    const items: Item[] = [];
    if (limit <= 0) return items;
    for await (const item of this.items(Math.min(limit, this.options.maxItems ?? Infinity))) items.push(item);
    return items;
  }

  /** The cursor of the page after `page`, or undefined when `page` is the last. */
  private nextCursor(page: Page, query: Record<string, unknown>): string | undefined {
    const { rule } = this;
    const items = itemsOf<unknown>(page, rule);
    if (rule.cursorFromLastItem) {
      // No "more" flag: an empty page, or one shorter than the requested size, is the last.
      // The query passed validation: the page size is an integer or absent, and no length is less than undefined.
      const limit = (rule.limitParam ? query[rule.limitParam] : undefined) as number;
      if (items.length === 0 || items.length < limit) return undefined;
      const cursor = (items[items.length - 1] as Record<string, unknown>)?.[rule.cursorFromLastItem];
      if (typeof cursor !== "string" || !cursor) {
        throw new PaginationError(`The last item has no \`${rule.cursorFromLastItem}\` to continue from.`);
      }
      return cursor;
    }
    if (!at(page, rule.hasMore)) return undefined;
    const cursor = at(page, rule.nextCursor);
    if (typeof cursor !== "string" || !cursor) {
      throw new PaginationError(`The page says there is more but has no \`${rule.nextCursor}\` to continue from.`);
    }
    return cursor;
  }

  private throwIfAborted() {
    const { signal } = this.options;
    if (signal?.aborted) throw APIUserAbortError.of(signal);
  }
}

export function itemsOf<Item>(page: unknown, rule: PaginationRule): Item[] {
  const items = at(page, rule.items);
  // Stryker disable next-line ArrayDeclaration: every page passed the response check, which holds the spec's required list property to an array, so the fallback is never reached
  return Array.isArray(items) ? (items as Item[]) : [];
}

function at(value: unknown, path: string | undefined): unknown {
  if (!path) return undefined;
  for (const key of path.split(".")) value = isRecord(value) ? value[key] : undefined;
  return value;
}
