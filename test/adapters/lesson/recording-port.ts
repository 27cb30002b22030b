/**
 * A platform port that records every call (for controller tests): thread ids
 * `rec:<id>`, message ids counted, an Actor that records its notices and forms.
 */

import type { Actor, AnswerForm, LessonIntro, LessonPlace, PlatformPort } from "../../../src/adapters/lesson/port.ts";
import type { Participant } from "../../../src/core/contracts/events.ts";
import { joinThreadId, splitThreadId } from "../../../src/core/contracts/thread-id.ts";
import type { Card, PlanPicture } from "../../../src/render/index.ts";

/** One recorded port call. */
export type PortCall =
	| { call: "postCard"; threadId: string; card: Card; ids: string[] }
	| { call: "editCard"; threadId: string; messageIds: readonly string[]; card: Card }
	| { call: "postPicture"; threadId: string; picture: PlanPicture }
	| { call: "openThread"; place: LessonPlace; intro: LessonIntro }
	| { call: "closeThread"; threadId: string; why: string }
	| { call: "lessonEnded"; threadId: string }
	| { call: "startTyping"; threadId: string };

/** A recording port; `log` gets every call in order (also other events the test pushes). */
export function recordingPort(log: Array<PortCall | { call: string }> = []) {
	let next = 0;
	let threads = 0;
	const port: PlatformPort<string> & { log: typeof log } = {
		log,
		name: "rec",
		limits: { formPrecheckMs: 200, typingRefreshMs: 60_000 },
		style: { startHint: "`/lesson start`", adminHint: " (admin)" },
		encodeThreadId: (id) => joinThreadId("rec", [id]),
		decodeThreadId: (threadId) => splitThreadId("rec", threadId, 1)?.[0],
		async postCard(threadId, card) {
			const ids = [`m${++next}`];
			log.push({ call: "postCard", threadId, card, ids });
			return ids;
		},
		async editCard(threadId, messageIds, card) {
			log.push({ call: "editCard", threadId, messageIds, card });
			return true;
		},
		async postPicture(threadId, picture) {
			log.push({ call: "postPicture", threadId, picture });
			return true;
		},
		async startTyping(threadId) {
			log.push({ call: "startTyping", threadId });
		},
		async openThread(place, intro) {
			log.push({ call: "openThread", place, intro });
			return { ok: true, threadId: `rec:t${++threads}` };
		},
		async closeThread(threadId, _place, why) {
			log.push({ call: "closeThread", threadId, why });
		},
		async lessonEnded(threadId) {
			log.push({ call: "lessonEnded", threadId });
		},
	};
	return port;
}

/** An Actor that records what it was told and which forms it opened. */
export function recordingActor(by: Participant, admin = false) {
	const notices: string[] = [];
	const forms: AnswerForm[] = [];
	const actor: Actor & { notices: string[]; forms: AnswerForm[] } = {
		by,
		notices,
		forms,
		isAdmin: async () => admin,
		notify: async (text) => void notices.push(text),
		openForm: async (form) => void forms.push(form),
	};
	return actor;
}
