/**
 * UIMessage[] → ModelMessage[] with convertToModelMessages, memoized per
 * message object. The engine never mutates a stored message (record-edit.ts
 * replaces it, even to settle one tool part), so a message converts once and
 * renders the same bytes in every later request (prompt caching), and a turn
 * costs O(new messages).
 *
 * A learner's pictures are the one part whose rendering moves: a picture goes to the model
 * for PICTURE_TURNS turns after it came (its bytes inline, loaded by engine/pictures.ts), then
 * as a short placeholder text. The move happens once per picture (the turn count only grows;
 * a refusal replaces the message), at the first request of a turn, so the byte-stable prefix
 * of the requests breaks at most once per picture, from that message on. A message whose
 * pictures are all placeholders is memoized like any other; one still carrying bytes is
 * converted per request and never cached (its megabytes stay in the picture store's cache).
 *
 * A question the learner has not answered when a turn runs (they asked something first) shows a
 * placeholder result saying it is still open, and keeps showing it once answered: its answer comes
 * in a later message (engine/held-open.ts), so that message's bytes never change either.
 */

import { convertToModelMessages, type ModelMessage } from "ai";
import { HELD_OUTPUT } from "../../core/late-answer.ts";
import { PICTURE_PART, parsePictureRef, pictureLive, picturePlaceholder } from "../../core/learner-images.ts";
import type { LessonMessage } from "../store/types.ts";

const cache = new WeakMap<LessonMessage, ModelMessage[]>();

/** The model messages of a transcript before any turn, no picture bytes loaded (messages seen before come from the cache). */
export async function toModelMessages(messages: readonly LessonMessage[]): Promise<ModelMessage[]> {
	return (await toRequestMessages(messages, { turns: 0, bytes: new Map() })).messages;
}

/** How one request shows the learner's pictures. */
export interface PictureView {
	/** The lesson's turn count now (`record.turns`): which pictures are still in their window. */
	turns: number;
	/** The base64 bytes loaded for this request, by sha256 (a picture in its window without bytes gets its placeholder). */
	bytes: ReadonlyMap<string, string>;
}

/** A picture a request carries: the message and the part it came from (what a refusal marks). */
export interface CarriedPicture {
	messageId: string;
	part: number;
}

type Part = LessonMessage["parts"][number];

/** A picture stored inline before pictures were stored apart: a data: URL in a learner's message (attached at turn 0). */
function isInlinePicture(message: LessonMessage, part: Part): part is Extract<Part, { type: "file" }> {
	return (
		part.type === "file" &&
		message.role === "user" &&
		message.metadata?.kind === "learner" &&
		typeof part.url === "string" &&
		part.url.startsWith("data:image/")
	);
}

const withPictures = new WeakMap<LessonMessage, boolean>();

/** Whether a message holds a learner's picture (memoized: messages are never mutated). */
export function holdsPictures(message: LessonMessage): boolean {
	let has = withPictures.get(message);
	if (has === undefined) {
		has = message.role === "user" && message.parts.some((p) => p.type === PICTURE_PART || isInlinePicture(message, p));
		withPictures.set(message, has);
	}
	return has;
}

/** The message as this request shows it; `settled`: no picture of it will ever go to the model again. */
function renderPictures(
	message: LessonMessage,
	view: PictureView,
	carried: CarriedPicture[],
): { message: LessonMessage; settled: boolean } {
	let settled = true;
	const text = (ref: Parameters<typeof picturePlaceholder>[0]): Part => ({
		type: "text",
		text: picturePlaceholder(ref),
	});
	const parts = message.parts.map((part, i): Part => {
		if (isInlinePicture(message, part)) {
			if (!pictureLive({ turn: 0 }, view.turns)) return text(part.filename ? { filename: part.filename } : {});
			settled = false;
			carried.push({ messageId: message.id, part: i });
			return part;
		}
		if (part.type !== PICTURE_PART) return part;
		const ref = parsePictureRef((part as { data?: unknown }).data);
		// Not a reference we can read: the SDK drops data parts, so the model sees nothing of it.
		if (!ref) return part;
		if (!pictureLive(ref, view.turns)) return text(ref);
		settled = false;
		const base64 = view.bytes.get(ref.sha256);
		if (base64 === undefined) return text(ref);
		carried.push({ messageId: message.id, part: i });
		return {
			type: "file",
			mediaType: ref.mediaType,
			url: `data:${ref.mediaType};base64,${base64}`,
			...(ref.filename !== undefined ? { filename: ref.filename } : {}),
		};
	});
	return { message: { ...message, parts }, settled };
}

/**
 * The message as the model sees it: a question the learner has not answered yet (kept open over a turn:
 * held-open.ts) shows the pending placeholder as its result, and so does one answered after that (its
 * result comes in a later message): the bytes of that message never change. `pending`: it holds such a
 * question not answered yet.
 */
function withHeldResults(message: LessonMessage): { message: LessonMessage; pending: boolean } {
	if (message.role !== "assistant") return { message, pending: false };
	let pending = false;
	let changed = false;
	const parts = message.parts.map((part): Part => {
		if (part.type !== "tool-quiz" && part.type !== "tool-ask") return part;
		const view = part as { state?: unknown; output?: unknown };
		const deferred = (view.output as { deferred?: unknown } | undefined)?.deferred === true;
		if (view.state === "input-available") pending = true;
		else if (!(view.state === "output-available" && deferred)) return part;
		changed = true;
		return { ...part, state: "output-available", output: HELD_OUTPUT } as Part;
	});
	return { message: changed ? { ...message, parts } : message, pending };
}

/**
 * The model messages of one request, with the pictures in their window inline and the others as
 * placeholders; `carried`: the pictures it sends (a provider refusal marks them).
 */
export async function toRequestMessages(
	messages: readonly LessonMessage[],
	view: PictureView,
): Promise<{ messages: ModelMessage[]; carried: CarriedPicture[] }> {
	const out: ModelMessage[] = [];
	const carried: CarriedPicture[] = [];
	for (const message of messages) {
		let converted = cache.get(message);
		if (!converted) {
			if (holdsPictures(message)) {
				const rendered = renderPictures(message, view, carried);
				converted = await convertToModelMessages([rendered.message]);
				if (rendered.settled) cache.set(message, converted);
			} else {
				const view = withHeldResults(message);
				converted = await convertToModelMessages([view.message]);
				// A question still pending renders differently once it is answered (a new message object then).
				if (!view.pending) cache.set(message, converted);
			}
		}
		out.push(...converted);
	}
	return { messages: out, carried };
}
