/**
 * A card's pictures (formulas, lettered options) on Slack. An image block shows a Slack file only where that file
 * is shared: Slack's Block Kit reference says "the user posting these blocks must have access to this file", and
 * users of its SDKs report `invalid_blocks` ("invalid slack file") for a file uploaded without a channel
 * (slackapi/bolt-python#1251: "without the channel ID, only the bot would have access to that file"). So a card's
 * pictures are uploaded into the lesson's thread, together (one file message), before the card that shows them.
 * Slack processes a new file for a moment ("file not found" right after the upload, python-slack-sdk#1521; Slack's
 * maintainers suggest polling files.info, slack-github-action#413), so the poster waits, briefly and bounded,
 * until files.info shows each file processed and shared in the channel; past the bound it posts anyway (a refused
 * card is posted again without its pictures, port.ts).
 *
 * A picture once shared in a channel is not uploaded again (the same formula in a later card): file ids are
 * remembered per channel and picture (a hash of its bytes), in memory and bounded. An edit carrying pictures
 * (an answered card shows its TeX as code, so none do today) shows those remembered and goes without the others
 * (another process, a restart): never an image block without a file, which Slack refuses.
 */

import { createHash } from "node:crypto";
import type { webApi } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import type { Logger } from "../../core/contracts/logger.ts";
import type { SlackMessage } from "../../render/index.ts";
import { uploadAllToSlack } from "./upload.ts";

/** Remembered picture ids (channel and picture → file id); the oldest go first. */
const REMEMBERED = 1_000;
/** files.info checks before posting anyway, and the wait before each (doubling): at most 1.75 s in all. */
const READY_CHECKS = 4;
const FIRST_WAIT_MS = 250;

/** Where a card goes: a channel, and the lesson's thread in it (none for a direct message). */
export interface PictureTarget {
	channel: string;
	threadTs?: string;
}

/** Uploads a card's pictures where it is posted, and finds them again for its edits. */
export interface SlackPictures {
	/** The message with its image blocks showing files shared in the target (uploaded now if new); failed ones go. */
	attach(message: SlackMessage, target: PictureTarget, sessionId?: string): Promise<SlackMessage>;
	/** For an edit: image blocks showing the files already shared in `channel`; the others go. */
	reuse(message: SlackMessage, channel: string): SlackMessage;
}

const isPictureBlock = (block: KnownBlock): boolean =>
	block.type === "image" && block.block_id !== undefined && block.block_id.startsWith("lh-img-");

/** Whether files.info shows a file processed and shared in `channel` (undefined: files.info failed). */
async function isReady(client: webApi.WebClient, id: string, channel: string): Promise<boolean | undefined> {
	try {
		const file = (await client.files.info({ file: id })).file as
			| {
					mimetype?: unknown;
					channels?: unknown;
					groups?: unknown;
					ims?: unknown;
					shares?: { public?: Record<string, unknown>; private?: Record<string, unknown> };
			  }
			| undefined;
		if (!file || typeof file.mimetype !== "string" || file.mimetype === "") return false;
		const listed = [file.channels, file.groups, file.ims].flatMap((l) => (Array.isArray(l) ? l : []));
		const shared = Object.keys({ ...file.shares?.public, ...file.shares?.private });
		return listed.includes(channel) || shared.includes(channel);
	} catch {
		return undefined;
	}
}

/** A picture registry over one Web API client. */
export function createSlackPictures(client: webApi.WebClient, logger: Logger): SlackPictures {
	const remembered = new Map<string, string>();
	const keyOf = (channel: string, data: Buffer) => `${channel} ${createHash("sha256").update(data).digest("hex")}`;
	const remember = (key: string, id: string) => {
		remembered.delete(key);
		remembered.set(key, id);
		if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value ?? "");
	};

	/** Wait until every file is ready in the channel, at most READY_CHECKS rounds; files.info failing ends the wait. */
	const whenReady = async (ids: string[], channel: string): Promise<void> => {
		let waiting = ids;
		for (let round = 0; round < READY_CHECKS && waiting.length > 0; round++) {
			const verdicts = await Promise.all(waiting.map((id) => isReady(client, id, channel)));
			if (verdicts.includes(undefined)) return;
			waiting = waiting.filter((_, i) => verdicts[i] !== true);
			if (waiting.length > 0 && round < READY_CHECKS - 1)
				await new Promise((resolve) => setTimeout(resolve, FIRST_WAIT_MS * 2 ** round));
		}
		if (waiting.length > 0) logger.warn({ files: waiting, channel }, "slack: pictures not ready yet; posting anyway");
	};

	/** The message with each picture block pointing at `ids` (by block id); blocks without an id go. */
	const pointed = (message: SlackMessage, ids: Map<string, string>): SlackMessage => ({
		text: message.text,
		blocks: message.blocks.flatMap((block): KnownBlock[] => {
			if (!isPictureBlock(block)) return [block];
			const id = ids.get(block.block_id ?? "");
			return id ? [{ ...block, slack_file: { id } } as KnownBlock] : [];
		}),
		...(message.files ? { files: message.files } : {}),
	});

	return {
		async attach(message, target, sessionId) {
			const images = message.images ?? [];
			if (images.length === 0) return message;
			const ids = new Map<string, string>();
			const fresh = images.filter((image) => {
				const id = remembered.get(keyOf(target.channel, image.data));
				if (id) ids.set(image.blockId, id);
				return !id;
			});
			if (fresh.length > 0) {
				try {
					const uploaded = await uploadAllToSlack(
						client,
						fresh.map((image) => ({ data: image.data, filename: image.filename, alt: image.alt })),
						{ channelId: target.channel, ...(target.threadTs ? { threadTs: target.threadTs } : {}) },
						(error) =>
							logger.warn({ err: error, sessionId }, "slack: a formula picture did not upload; its TeX stays as text"),
					);
					fresh.forEach((image, i) => {
						const id = uploaded[i];
						if (!id) return;
						ids.set(image.blockId, id);
						remember(keyOf(target.channel, image.data), id);
					});
					await whenReady(
						uploaded.filter((id): id is string => id !== undefined),
						target.channel,
					);
				} catch (error) {
					logger.warn(
						{ err: error, sessionId },
						"slack: a card's pictures could not be shared; their TeX stays as text",
					);
				}
			}
			return pointed(message, ids);
		},
		reuse(message, channel) {
			const ids = new Map<string, string>();
			for (const image of message.images ?? []) {
				const id = remembered.get(keyOf(channel, image.data));
				if (id) ids.set(image.blockId, id);
			}
			return pointed(message, ids);
		},
	};
}
