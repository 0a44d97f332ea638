import { type QueryExecutorProvider, type RawBuilder, sql } from "kysely";
import { foldedTagName } from "../../../contract/contact-rules.js";
import type { Db } from "../database.js";
import { engineOf } from "../engine.js";
import type { SearchQuery } from "./contact-search.js";
import { postgresContactPages } from "./postgres-contact-pages.js";
import { sqliteContactPages } from "./sqlite-contact-pages.js";

/**
 * The SQL of contact pages that differs between the engines, one implementation per engine: the
 * contact as JSON text written by the database (contact-json.ts) and a search's page source and
 * count (sqlite-contact-pages.ts, postgres-contact-pages.ts). The plain, status and tag pages,
 * the paging and the counters are portable SQL in domain/contact-listing.ts, which also decides
 * what a search looks for (domain/contact-search.ts) and what its count says.
 */

/** What a page reads: its tables, the key it is ordered by (newest first) and its conditions. */
export interface PageSource {
  /** The tables, joined as the plan needs (`contacts` among them). */
  from: RawBuilder<unknown>;
  /** An integer column equal to `contacts.seq`, read from an index the plan walks. */
  key: string;
  conditions: readonly RawBuilder<boolean>[];
}

/** A search of a workspace's contacts. */
export interface ContactSearch {
  workspaceId: string;
  /** The prefix terms searched for (searchQuery). */
  terms: SearchQuery;
  /** The other filters (status, tags), written on the table `contacts`; empty when none. */
  filters: readonly RawBuilder<boolean>[];
  /** Matches are counted up to this many (one more when there are more). */
  bound: number;
}

/** Where a search's page is read from, and how its matches are counted. */
export interface SearchSource {
  source: PageSource;
  /** The matches, up to the search's bound, or the bound + 1 when there are more. */
  counted(): Promise<number>;
}

/** The engine's part of contact pages (see contactPagesOf). */
export interface ContactPages {
  /** The contact as the API shows it, as JSON text written by the database. */
  readonly json: RawBuilder<string>;
  /**
   * Runs `page` with the search's source, on the handle its queries must go to (on PostgreSQL a
   * transaction that holds the plans chosen for them), and answers what `page` answers.
   */
  search<T>(
    db: Db,
    search: ContactSearch,
    page: (db: Db, found: SearchSource) => Promise<T>,
  ): Promise<T>;
}

/** The contact page statements of the engine behind a database handle. */
export function contactPagesOf(db: QueryExecutorProvider): ContactPages {
  return engineOf(db) === "postgres" ? postgresContactPages : sqliteContactPages;
}

/**
 * Whether the `contact_tags` row is the tag `name` whatever the case (see foldedTagName), read
 * from the index on the folded name.
 */
export function tagNamed(name: string): RawBuilder<boolean> {
  const folded = foldedTagName(name);
  // A tag an instance of the release before migration 0016 wrote during a rolling upgrade has
  // no folded name (''): it is matched as that release matched it.
  return sql<boolean>`(folded_name = ${folded} OR (folded_name = '' AND lower(name) = ${folded}))`;
}
