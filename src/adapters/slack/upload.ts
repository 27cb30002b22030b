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

/** Upload a file; its id. Rejects with what Slack said when a step fails. */
export async function uploadToSlack(client: webApi.WebClient, upload: SlackUpload): Promise<string> {
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
	await client.files.completeUploadExternal({
		files: [{ id: url.file_id, ...(upload.title ? { title: clip(upload.title, TITLE_MAX) } : {}) }],
		...(upload.channelId ? { channel_id: upload.channelId } : {}),
		...(upload.channelId && upload.threadTs ? { thread_ts: upload.threadTs } : {}),
		...(upload.channelId && upload.initialComment ? { initial_comment: upload.initialComment } : {}),
	} as Parameters<webApi.WebClient["files"]["completeUploadExternal"]>[0]);
	return url.file_id;
}
