import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Db } from "../db/database.js";
import type { Clock } from "../domain/clock.js";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  type IdempotencyKeyRef,
  releaseIdempotencyKey,
} from "../domain/idempotency.js";
import { requestFingerprint } from "../plugins/idempotency.js";

/**
 * The hidden field that makes each shown form one submission: a double click or a reload of the
 * answer posts it again, and must show the first answer instead of creating a second workspace.
 */
export const submissionField = "submission";

/** A fresh submission id for a form about to be shown (128 random bits). */
export function newSubmissionId(): string {
  return randomBytes(16).toString("base64url");
}

const submissionPattern = /^[A-Za-z0-9_-]{22}$/;

/** The idempotency keys of sign-ups are their own: no API token has this id. */
const signUpKeyOwner = "public-sign-up";

/** How long a second post waits for the first one still running before it says so. */
const waitForFirstMs = 10_000;

/** A sign-up page as answered. */
export interface SignUpAnswer {
  status: number;
  html: string;
  /** Seconds to wait, for a refusal of too many sign-ups. */
  retryAfter?: number;
}

/**
 * Runs `create` once per submission id and form: the same form posted again gets the first
 * post's answer (a workspace created), waiting for it while it runs. A post that created nothing
 * (a field to correct, too many sign-ups) keeps no answer, so the corrected form goes through. A
 * form changed after its first post created a workspace is a new sign-up, kept under the id and
 * its own content, so that it too is created once however often it is posted. A form without an
 * id (a page shown before this existed, a script) runs as it comes.
 */
export async function oncePerSubmission(
  db: Db,
  clock: Clock,
  submission: string,
  form: Record<string, string>,
  create: () => Promise<SignUpAnswer>,
  stillRunning: () => SignUpAnswer,
): Promise<SignUpAnswer> {
  if (!submissionPattern.test(submission)) return create();
  const fingerprint = requestFingerprint("POST", "/register", form);
  let ref: IdempotencyKeyRef = { tokenId: signUpKeyOwner, key: submission };
  const giveUpAt = Date.now() + waitForFirstMs;
  for (;;) {
    const claim = await claimIdempotencyKey(db, clock, ref, fingerprint);
    if (claim.outcome === "replay") {
      return { status: claim.response.status, html: claim.response.body };
    }
    if (claim.outcome === "reused") {
      if (ref.key !== submission) return create(); // two forms of one hash: never met
      // The id's first form made a workspace; this other form is claimed under its own key.
      ref = { tokenId: signUpKeyOwner, key: `${submission}.${fingerprint}` };
      continue;
    }
    if (claim.outcome === "in_progress") {
      if (Date.now() >= giveUpAt) return stillRunning();
      await sleep(100);
      continue;
    }
    let answer: SignUpAnswer;
    try {
      answer = await create();
    } catch (error) {
      await releaseIdempotencyKey(db, ref);
      throw error;
    }
    if (answer.status === 201) {
      await completeIdempotencyKey(db, ref, { status: 201, headers: {}, body: answer.html });
    } else {
      await releaseIdempotencyKey(db, ref);
    }
    return answer;
  }
}
