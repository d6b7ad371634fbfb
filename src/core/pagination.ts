// Auto-pagination driven by each operation's `x-pagination` rule in the spec.
// `await list` gives the first page; `for await (const item of list)` every item; `.pages()` every page;
// `.toArray()` the items in an array; `.withResponse()` the first page with its response. The pages come from one
// cursor chain (cursor.ts), or from a source the hub hands in (the date windows of windows.ts).
import { cursorChain, itemsOf, type PaginationRule } from "./cursor.js";
import { APIUserAbortError } from "./errors.js";
import { checkItemCount } from "./options.js";
import type { APIPromise, WithResponse } from "./response.js";

export { MAX_EMPTY_PAGES, PaginationError, type PaginationRule } from "./cursor.js";

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

/** Fetches one page of the list. */
export type FetchPage<Page> = (query: Record<string, unknown>) => APIPromise<Page>;

/**
 * Where the pages come from when not from one cursor chain starting at the query (the date windows): every page with
 * its response. `maxItems` is the most items the caller takes (`maxItems`, or a smaller `toArray` limit), past which
 * a source that reads ahead must not.
 */
export type PageSource<Page> = (maxItems: number) => AsyncGenerator<WithResponse<Page>, void, undefined>;

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

  // biome-ignore lint/suspicious/noThenProperty: a PagePromise is awaited for its first page, as openai-node's is
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
    const { query } = this;
    const answers = this.source
      ? this.source(max)
      : cursorChain(this.rule, query, (at) => (at === query ? this.first() : this.fetchPage(at)).withResponse(), this.options.signal);
    let count = 0;
    for await (const answer of answers) {
      yield withResponse ? answer : answer.data;
      count += itemsOf(answer.data, this.rule).length;
      if (count >= max) return;
    }
  }

  /** Every item of every page, up to `maxItems`. */
  [Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    return this.items(this.options.maxItems ?? Infinity);
  }

  /** The items, up to `max`. */
  private async *items(max: number): AsyncGenerator<Item, void, undefined> {
    let count = 0;
    const { signal } = this.options;
    for await (const page of this.pagesUpTo(max, false) as AsyncGenerator<Page, void, undefined>) {
      for (const item of itemsOf<Item>(page, this.rule)) {
        if (signal?.aborted) throw APIUserAbortError.of(signal);
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
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut: items(0) fetches and yields nothing either, as pagesUpTo stops at a max of 0
    if (limit <= 0) return items;
    for await (const item of this.items(Math.min(limit, this.options.maxItems ?? Infinity))) items.push(item);
    return items;
  }
}
