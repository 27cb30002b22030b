/**
 * The engine's side of a learner's pictures: a message's pictures are charged to the
 * lesson's and the sender's byte budget, stored once in the picture store, and kept in the
 * transcript as references (core/learner-images.ts); a model request loads the bytes of the
 * pictures still in their window (model-messages.ts renders the rest as placeholders); a
 * picture the provider refused is marked so, and never sent again.
 */

import type { TutorEvent } from "../../core/contracts/events.ts";
import { platformOf } from "../../core/contracts/thread-id.ts";
import {
	type LearnerImage,
	PICTURE_PART,
	PICTURE_TURNS,
	type PictureRef,
	parsePictureRef,
	pictureLive,
	picturePlaceholder,
} from "../../core/learner-images.ts";
import { DEFAULT_LOCALE, tn } from "../../i18n/index.ts";
import type { PictureCharge } from "../store/picture-store.ts";
import type { LessonMessage, SessionRecord } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import { type CarriedPicture, toRequestMessages } from "./model-messages.ts";
import type { Job } from "./session-state.ts";

type Part = LessonMessage["parts"][number];
/** A job that brings pictures: a message, or a typed answer with pictures of the learner's working. */
type PictureJob = Extract<Job, { type: "message" }> | Extract<Job, { type: "answer" }>;

/** What a message's pictures become: transcript parts, and the notices for pictures the budget refused. */
export interface StoredPictures {
	parts: Part[];
	events: TutorEvent[];
}

const stored = new WeakMap<PictureJob, Promise<StoredPictures>>();

/** Bytes of a base64 text (without decoding it). */
const byteLength = (base64: string): number =>
	Math.floor((base64.length * 3) / 4) - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0);

const megabytes = (bytes: number): string => {
	const mb = bytes / (1024 * 1024);
	return `${mb < 10 ? Number(mb.toFixed(1)) : Math.round(mb)} MB`;
};

/** The key a learner's daily budget is kept under: the platform of the lesson and the member's id. */
const learnerKey = (sessionId: string, id: string): string => `${platformOf(sessionId)}:${id}`;

/**
 * Charge and store the pictures of a job (a message, or a typed answer), once per job (a batch applied again after a
 * lost race reuses the outcome: nothing is charged twice). A picture over budget is not stored: its
 * part is a text saying so, and the thread is told. Rejects when the store fails (the batch is refused).
 */
export function storePictures(ctx: EngineContext, record: SessionRecord, job: PictureJob): Promise<StoredPictures> {
	let outcome = stored.get(job);
	if (!outcome) {
		outcome = store(ctx, record, job);
		stored.set(job, outcome);
		// A failure is not kept: the job may be delivered again once the store is back.
		outcome.catch(() => stored.delete(job));
	}
	return outcome;
}

async function store(ctx: EngineContext, record: SessionRecord, job: PictureJob): Promise<StoredPictures> {
	const sessionId = record.sessionId;
	const parts: Part[] = [];
	const refused: Array<Extract<PictureCharge, { ok: false }>> = [];
	const payer = learnerKey(sessionId, (job.type === "answer" ? job.result.by : job.by).id);
	for (const image of job.images ?? []) {
		const bytes = byteLength(image.base64);
		const charge = await ctx.pictures.charge(sessionId, payer, bytes);
		if (!charge.ok) {
			refused.push(charge);
			parts.push({ type: "text", text: overBudgetText(image) });
			continue;
		}
		let picture: Awaited<ReturnType<typeof ctx.pictures.put>>;
		try {
			picture = await ctx.pictures.put(sessionId, image);
		} catch (error) {
			// Not stored: the charge is taken back (best effort) and the batch refused.
			await ctx.pictures.charge(sessionId, payer, -bytes).catch(() => undefined);
			throw error;
		}
		const ref: PictureRef = {
			mediaType: image.mediaType,
			sha256: picture.sha256,
			bytes: picture.bytes,
			...(image.filename ? { filename: image.filename } : {}),
			turn: record.turns ?? 0,
		};
		parts.push({ type: PICTURE_PART, data: ref } as Part);
	}
	const events: TutorEvent[] = [];
	const first = refused[0];
	if (first) {
		const locale = record.language ?? DEFAULT_LOCALE;
		const key = first.scope === "lesson" ? "image.budgetLesson" : "image.budgetLearner";
		const message = tn(locale, key, refused.length, { limit: megabytes(first.limit) });
		events.push({ type: "error", sessionId, code: "picture-budget", message, retryable: false });
	}
	return { parts, events };
}

/** What the model reads for a picture the budget kept back. */
function overBudgetText(image: LearnerImage): string {
	const alt = image.filename ? image.filename.replace(/[[\]\n\r]/g, "").slice(0, 80) : "photo";
	return `[the learner sent a picture that was not passed on (their picture allowance is used up): ${alt}]`;
}

/**
 * The model messages of the next request: the bytes of the pictures in their window are read from
 * the picture store (a picture whose bytes are gone, or cannot be read now, goes as its placeholder).
 */
export async function requestMessages(ctx: EngineContext, record: SessionRecord) {
	const turns = record.turns ?? 0;
	const bytes = new Map<string, string>();
	// Newest first: pictures are attached in turn order, so the scan stops at the first one past its window.
	scan: for (let i = record.messages.length - 1; i >= 0; i--) {
		const message = record.messages[i];
		if (message?.role !== "user") continue;
		for (const part of message.parts) {
			if (part.type !== PICTURE_PART) continue;
			const ref = parsePictureRef((part as { data?: unknown }).data);
			if (!ref) continue;
			if (turns - ref.turn > PICTURE_TURNS) break scan;
			if (!pictureLive(ref, turns) || bytes.has(ref.sha256)) continue;
			try {
				const base64 = await ctx.pictures.get(record.sessionId, ref.sha256);
				if (base64 !== undefined) bytes.set(ref.sha256, base64);
				else ctx.logger.warn({ sessionId: record.sessionId, sha256: ref.sha256 }, "a picture's bytes are gone");
			} catch (error) {
				ctx.logger.warn({ err: error, sessionId: record.sessionId }, "reading a picture failed; it is left out");
			}
		}
	}
	return toRequestMessages(record.messages, { turns, bytes });
}

/**
 * Mark the pictures a refused request carried as refused (the messages are replaced, never
 * mutated): the model sees their placeholder from now on. A picture stored inline by an older
 * version becomes its placeholder text (its bytes leave the record). Returns how many were marked.
 */
export function markRefused(record: SessionRecord, carried: readonly CarriedPicture[]): number {
	let marked = 0;
	for (let m = 0; m < record.messages.length; m++) {
		const message = record.messages[m];
		if (!message) continue;
		const mine = carried.filter((c) => c.messageId === message.id);
		if (mine.length === 0) continue;
		const parts = message.parts.map((part, i): Part => {
			if (!mine.some((c) => c.part === i)) return part;
			if (part.type === "file") {
				marked++;
				return { type: "text", text: picturePlaceholder({ refused: true, ...optional(part.filename) }) };
			}
			const ref = parsePictureRef((part as { data?: unknown }).data);
			if (!ref || ref.refused) return part;
			marked++;
			return { ...part, data: { ...ref, refused: true } } as Part;
		});
		record.messages[m] = { ...message, parts };
	}
	return marked;
}

const optional = (filename: string | undefined) => (filename !== undefined ? { filename } : {});

/** The notice for the thread after a refusal: the tutor went on without the pictures. */
export function refusedNotice(record: SessionRecord, count: number): TutorEvent {
	return {
		type: "error",
		sessionId: record.sessionId,
		code: "picture-refused",
		message: tn(record.language ?? DEFAULT_LOCALE, "image.refused", count),
		retryable: false,
	};
}
