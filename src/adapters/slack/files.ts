/**
 * The files a learner shares with a message (a `message` event's `files`, subtype file_share), as the lesson
 * controller downloads them (lesson/images.ts, with the bot token, from Slack's file host only). A file shared in
 * a Slack Connect channel comes without its properties: "the payload will contain a file object with the
 * key-value pair "file_access": "check_file_info" meaning that further action is required", and the app "should
 * make a request to files.info" (Slack, "Slack Connect: working with channels between organizations",
 * #check_file_info). Such a file is looked up with files.info (scope files:read, which url_private needs anyway);
 * one Slack will not describe stays without a URL, and the learner hears that it could not be downloaded.
 * Nothing here is trusted: event payloads and files.info answers are read field by field.
 */

import type { webApi } from "@slack/bolt";
import type { Logger } from "../../core/contracts/logger.ts";
import type { IncomingFile } from "../lesson/images.ts";

/** Slack's file host: url_private and url_private_download point here. */
export const SLACK_FILE_ORIGIN = "https://files.slack.com";

/** files.info calls for one message at most (a message carries a handful of files; the rest stay undescribed). */
const MAX_LOOKUPS = 10;

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** One file object (an event's or files.info's) as the controller reads it. */
function incoming(f: Record<string, unknown>): IncomingFile {
	const name = str(f.name);
	const declaredType = str(f.mimetype);
	return {
		url: str(f.url_private_download) ?? str(f.url_private),
		...(name ? { name } : {}),
		...(declaredType ? { declaredType } : {}),
		...(typeof f.size === "number" ? { declaredSize: f.size } : {}),
	};
}

/** A file object whose properties Slack holds back until files.info (Slack Connect). */
export const needsFileInfo = (f: unknown): f is { id: string } =>
	isObject(f) && f.file_access === "check_file_info" && typeof f.id === "string" && f.id !== "";

/** The number of file objects a message event carries (before any lookup). */
export const fileCount = (files: unknown): number => (Array.isArray(files) ? files.filter(isObject).length : 0);

/** The files of a message event, Slack Connect files looked up with files.info; never throws. */
export async function sharedFiles(client: webApi.WebClient, files: unknown, logger: Logger): Promise<IncomingFile[]> {
	if (!Array.isArray(files)) return [];
	const out: IncomingFile[] = [];
	let lookups = 0;
	for (const f of files.filter(isObject)) {
		if (!needsFileInfo(f)) {
			out.push(incoming(f));
			continue;
		}
		if (lookups++ < MAX_LOOKUPS)
			try {
				const file = (await client.files.info({ file: f.id })).file as unknown;
				if (isObject(file)) {
					out.push(incoming(file));
					continue;
				}
			} catch (error) {
				logger.warn({ err: error, file: f.id }, "slack: files.info could not describe a shared file");
			}
		out.push({ url: undefined });
	}
	return out;
}
