/**
 * The engine's side of "posted" for output-path tests: where each question's card was posted, as one
 * process's tutor keeps it (in memory, on the session's record) through `posted` and `postedCard`, and
 * whether the process still holds the session (`mayPost`: `holds`, true unless the test says otherwise).
 */

import type { PostedCard, Tutor } from "../../../src/core/contracts/tutor.ts";

/** One process's record of posted cards. */
export function postedRecords(
	holds: () => boolean | Promise<boolean> = () => true,
): Required<Pick<Tutor, "posted" | "postedCard" | "mayPost">> & { cards: Map<string, PostedCard> } {
	const cards = new Map<string, PostedCard>();
	return {
		cards,
		posted: (sessionId, toolCallId, card) => {
			cards.set(`${sessionId}\0${toolCallId}`, card);
		},
		postedCard: (sessionId, toolCallId) => cards.get(`${sessionId}\0${toolCallId}`),
		mayPost: async () => holds(),
	};
}
