/**
 * Review questions re-worded by the model at review time, so a learner
 * retrieves the idea rather than recognizing the sentence. The answer stays
 * the original's (the judge grades against it), so the model is told to keep
 * what is asked; anything odd (empty, too long, the answer given away) falls
 * back to the original wording.
 */

import { generateText, type LanguageModel } from "ai";
import type { ReviewItem } from "./profile-store.ts";

/** Longest re-wording accepted. */
const MAX_CHARS = 600;

/** A rephraser on `model`; resolves undefined (keep the original) on any failure. Never rejects. */
export function createRephraser(model: LanguageModel): (item: ReviewItem) => Promise<string | undefined> {
	return async (item) => {
		try {
			const { text } = await generateText({
				model,
				maxRetries: 0,
				maxOutputTokens: 200,
				abortSignal: AbortSignal.timeout(4_000),
				system:
					"Reword a review question for a learner. Keep exactly what is asked and the expected answer the same; " +
					"change the wording or the example numbers' framing only, never the numbers. Reply with the question only.",
				prompt: `Topic: ${item.topic} › ${item.label}\nQuestion: ${item.question}\nExpected answer (do not reveal): ${item.correctAnswer}`,
			});
			const worded = text.trim();
			if (worded === "" || worded.length > MAX_CHARS) return undefined;
			if (worded.toLowerCase().includes(item.correctAnswer.toLowerCase()) && item.correctAnswer.length > 2)
				return undefined;
			return worded;
		} catch {
			return undefined;
		}
	};
}
