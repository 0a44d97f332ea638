import type { ChannelThroughput } from "../../src/service/domain/channel-throughput.js";

/**
 * No limit and no database: every message of a batch may go at once, for tests that run the
 * campaign engine directly (`serve --throughput 0` is SharedChannelThroughput's own case).
 */
export const unlimitedThroughput: ChannelThroughput = {
  take: async (_channelId, wanted) => ({ granted: wanted, waitMs: 0 }),
};
