/**
 * The recent clicks of each lesson thread and how to answer them: a Discord
 * interaction's token, a Slack action's response_url. A turn started by a
 * click shows its output through what the click allows (the clicked card
 * updated in place, the next question posted as a follow-up), which does not
 * count against the bot's global REST limit (Discord) or chat.update's tier
 * (Slack). A click stops being used once it is older than `ttlMs` (the token
 * or URL expires), was refused, or failed once. Bounded in threads and clicks.
 */

/** A click and its way back to the platform. */
export interface ClickReply<T> {
	/** The message the clicked control sits on. */
	messageId: string;
	/** Platform data: an interaction token, a response_url. */
	reply: T;
	/** When the click arrived (ms). */
	at: number;
}

/** Per-thread recent clicks. */
export interface ClickReplies<T> {
	/** Remember a click in `threadId` (the newest is the thread's follow-up route). */
	note(threadId: string, messageId: string, reply: T): ClickReply<T>;
	/** The newest usable click of a thread (turn output posts through it), if any. */
	latest(threadId: string): ClickReply<T> | undefined;
	/** The newest usable click on `messageId` (its card is updated through it), if any. */
	onMessage(threadId: string, messageId: string): ClickReply<T> | undefined;
	/** Stop using one click (refused, or its token/URL failed). */
	forget(threadId: string, click: ClickReply<T>): void;
	/** Stop using every click of a thread (a turn not started by a click: the bot posts as itself). */
	clear(threadId: string): void;
}

const MAX_THREADS = 10_000;
const MAX_PER_THREAD = 8;

/** A registry whose clicks are usable for `ttlMs` after they arrived. */
export function createClickReplies<T>(ttlMs: number, now: () => number = Date.now): ClickReplies<T> {
	const threads = new Map<string, ClickReply<T>[]>();
	const fresh = (threadId: string): ClickReply<T>[] => {
		const list = threads.get(threadId);
		if (!list) return [];
		const alive = list.filter((c) => now() - c.at < ttlMs);
		if (alive.length === 0) threads.delete(threadId);
		else if (alive.length !== list.length) threads.set(threadId, alive);
		return alive;
	};
	return {
		note(threadId, messageId, reply) {
			const click = { messageId, reply, at: now() };
			const list = [...fresh(threadId), click].slice(-MAX_PER_THREAD);
			threads.delete(threadId); // re-inserted last: the map's order is least recently clicked first
			threads.set(threadId, list);
			if (threads.size > MAX_THREADS) threads.delete(threads.keys().next().value as string);
			return click;
		},
		latest: (threadId) => fresh(threadId).at(-1),
		onMessage: (threadId, messageId) => fresh(threadId).findLast((c) => c.messageId === messageId),
		forget(threadId, click) {
			const list = fresh(threadId).filter((c) => c !== click);
			if (list.length > 0) threads.set(threadId, list);
			else threads.delete(threadId);
		},
		clear: (threadId) => void threads.delete(threadId),
	};
}
