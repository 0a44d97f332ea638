import { createHash, type Hash } from "node:crypto";
import { type Readable, Transform, type TransformCallback } from "node:stream";
import type { FastifyRequest } from "fastify";

/**
 * A request body handed to its route as a stream (a contact import's `text/csv`), hashed as the
 * route reads it: with an Idempotency-Key, "the same request" must mean the same bytes, which
 * are known only once read (see plugins/idempotency.ts).
 */
export class DigestedBody extends Transform {
  private readonly hash: Hash = createHash("sha256");
  private ended: string | null = null;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    this.ended = this.hash.digest("hex");
    done();
  }

  /** The SHA-256 of the whole body once it has been read to its end; null before. */
  digest(): string | null {
    return this.ended;
  }

  /**
   * Reads what is left, for nothing but the hash, and answers the body's SHA-256; null when the
   * body is longer than `limitBytes` (it is then left unread).
   */
  async drain(limitBytes: number): Promise<string | null> {
    let bytes = 0;
    for await (const chunk of this) {
      bytes += (chunk as Buffer).length;
      if (bytes > limitBytes) return null;
    }
    return this.ended;
  }
}

const bodies = new WeakMap<FastifyRequest, DigestedBody>();

/**
 * The stream a route reads `payload` through: hashed when the request carries an
 * Idempotency-Key (and then known to the idempotency plugin), the payload itself otherwise.
 */
export function streamedBody(request: FastifyRequest, payload: Readable): Readable {
  if (request.headers["idempotency-key"] === undefined) return payload;
  const body = new DigestedBody();
  payload.on("error", (error) => body.destroy(error));
  payload.pipe(body);
  bodies.set(request, body);
  return body;
}

/** The hashed stream of a request's body, when its route reads it as one. */
export function digestedBodyOf(request: FastifyRequest): DigestedBody | undefined {
  return bodies.get(request);
}
