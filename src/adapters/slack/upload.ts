/**
 * A file upload to Slack in its three documented steps (files.getUploadURLExternal, the bytes to the
 * returned URL, files.completeUploadExternal), written here rather than through `files.uploadV2`: the SDK
 * (`@slack/web-api` 8.2) sends the picture's description as `alt_text`, while getUploadURLExternal takes
 * `alt_txt` (Slack's method reference: "alt_txt: Description of image for screen-reader", at most 1,000
 * characters), so screen readers got nothing.
 */

import type { webApi } from "@slack/bolt";
import { clip } from "./messages.ts";

/** Longest alt text getUploadURLExternal takes. */
export const SLACK_ALT_TEXT_MAX = 1000;
/** Longest file title we send. */
const TITLE_MAX = 250;
/** How long the bytes' POST may take. */
const UPLOAD_TIMEOUT_MS = 30_000;

/** What to upload and where to share it (no channel: a private file, for image blocks). */
export interface SlackUpload {
	data: Buffer;
	filename: string;
	/** The picture's description for screen readers (cut to SLACK_ALT_TEXT_MAX). */
	alt?: string;
	title?: string;
	channelId?: string;
	threadTs?: string;
	initialComment?: string;
}

/** The first two steps: a file id and the bytes at its upload URL. Rejects with what Slack said. */
async function reserve(client: webApi.WebClient, upload: Omit<SlackUpload, "channelId" | "threadTs">): Promise<string> {
	const alt = upload.alt?.trim();
	const url = await client.files.getUploadURLExternal({
		filename: upload.filename,
		length: upload.data.length,
		...(alt ? { alt_txt: clip(alt, SLACK_ALT_TEXT_MAX) } : {}),
	} as Parameters<webApi.WebClient["files"]["getUploadURLExternal"]>[0]);
	if (!url.upload_url || !url.file_id) throw new Error("slack: files.getUploadURLExternal gave no upload URL");
	const res = await fetch(url.upload_url, {
		method: "POST",
		headers: { "content-type": "application/octet-stream" },
		body: new Uint8Array(upload.data),
		signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
	});
	if (!res.ok) throw new Error(`slack: the upload URL answered HTTP ${res.status}`);
	await res.arrayBuffer().catch(() => undefined);
	return url.file_id;
}

/** The third step: the files complete, shared where `share` says (nowhere: private to the bot). */
async function complete(
	client: webApi.WebClient,
	files: Array<{ id: string; title?: string | undefined }>,
	share: Pick<SlackUpload, "channelId" | "threadTs" | "initialComment">,
): Promise<void> {
	await client.files.completeUploadExternal({
		files: files.map((f) => ({ id: f.id, ...(f.title ? { title: clip(f.title, TITLE_MAX) } : {}) })),
		...(share.channelId ? { channel_id: share.channelId } : {}),
		...(share.channelId && share.threadTs ? { thread_ts: share.threadTs } : {}),
		...(share.channelId && share.initialComment ? { initial_comment: share.initialComment } : {}),
	} as Parameters<webApi.WebClient["files"]["completeUploadExternal"]>[0]);
}

/** Upload a file; its id. Rejects with what Slack said when a step fails. */
export async function uploadToSlack(client: webApi.WebClient, upload: SlackUpload): Promise<string> {
	const id = await reserve(client, upload);
	await complete(client, [{ id, title: upload.title }], upload);
	return id;
}

/**
 * Upload several files and share them together (one completeUploadExternal: one message in the thread, not one
 * per file); each file's id, or undefined for one whose first steps failed. Rejects when the sharing itself fails.
 */
export async function uploadAllToSlack(
	client: webApi.WebClient,
	uploads: ReadonlyArray<Omit<SlackUpload, "channelId" | "threadTs" | "initialComment">>,
	share: Pick<SlackUpload, "channelId" | "threadTs">,
	onFailure: (error: unknown, filename: string) => void,
): Promise<Array<string | undefined>> {
	const ids: Array<string | undefined> = [];
	for (const upload of uploads)
		ids.push(
			await reserve(client, upload).catch((error: unknown) => {
				onFailure(error, upload.filename);
				return undefined;
			}),
		);
	const reserved = ids.flatMap((id, i) => (id ? [{ id, title: uploads[i]?.title }] : []));
	if (reserved.length > 0) await complete(client, reserved, share);
	return ids;
}
