/**
 * Files in the fake Slack: the three-step upload (files.getUploadURLExternal, the bytes to the upload URL,
 * files.completeUploadExternal), files a user shares (a `message` event's `files`, bytes at url_private for the
 * bot token only), files.info, and the rule for image blocks that show a Slack file. Each rule cites Slack's
 * documentation or, where Slack documents none, the reports its behaviour is taken from.
 *
 * - getUploadURLExternal: the description is `alt_txt`, at most 1,000 characters (method reference; an `alt_text`
 *   is an argument it does not know, and ignores).
 * - files.info (method reference): `file` is required; an unknown id answers `file_not_found`; the answer is
 *   `{ file, comments, response_metadata }` with the full file object (url_private, mimetype, …). Slack Connect:
 *   "When uploaded into a Slack Connect channel, file object properties are not immediately accessible to apps
 *   listening via the Events API", the event carries `{ id, mode: "file_access", file_access: "check_file_info",
 *   created: 0, timestamp: 0, user: "" }` and the app "should make a request to files.info" (Slack, "Slack Connect:
 *   working with channels between organizations", #check_file_info): `shareFile({ connect: true })`.
 * - An image block's `slack_file` names an image by `id` or `url` (url_private or permalink), never both ("If
 *   both are provided then the payload will be rejected"), png, jpg, jpeg or gif only (Block Kit, Slack file
 *   object). The fake refuses with invalid_blocks ("invalid slack file [json-pointer:…]", the wording users of
 *   Slack's SDKs report) a file that is unknown, not yet completed, or not shared in the channel the message goes
 *   to: a file uploaded without a channel and shown in a block fails this way for them (slackapi/bolt-python#1251,
 *   python-slack-sdk#1658: "without the channel ID, only the bot would have access to that file"), as does one
 *   referenced right after its upload (python-slack-sdk#1521). Slack's own wording of the rule is "the user posting
 *   these blocks must have access to this file"; the fake holds the stricter reading, which is what was reported.
 */

import type { IncomingMessage, ServerResponse } from "node:http";

/** A file going through files.getUploadURLExternal → upload URL → files.completeUploadExternal. */
export interface FakeUpload {
	fileId: string;
	filename: string;
	length: number;
	bytes?: Buffer;
	completed: boolean;
	channelId?: string;
	threadTs?: string;
	title?: string;
	initialComment?: string;
	/** The file's alt text (sent as `alt_txt` with files.getUploadURLExternal). */
	altText?: string;
}

/** A file a user shared (what a `message` event's `files[]` carries); its bytes are served at url_private. */
export interface FakeSharedFile {
	id: string;
	name: string;
	mimetype: string;
	filetype: string;
	size: number;
	url_private: string;
	url_private_download: string;
	mode: "hosted";
}

/** A file shared in a Slack Connect channel, as the event carries it: nothing but its id until files.info. */
export interface FakeConnectFile {
	id: string;
	mode: "file_access";
	file_access: "check_file_info";
	created: 0;
	timestamp: 0;
	user: "";
}

/** What the fake knows of a file, uploaded or shared. */
interface StoredFile {
	id: string;
	name: string;
	mimetype: string;
	size: number;
	data?: Buffer;
	path: string;
	channels: Set<string>;
	/** Uploaded and not yet completed: not a file anyone can see. */
	pending: boolean;
	title?: string;
	altText?: string;
}

const IMAGE_TYPES = new Set(["png", "jpg", "jpeg", "gif"]);
const MIME_OF: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif" };
const extensionOf = (name: string): string => name.split(".").pop()?.toLowerCase() ?? "binary";

/** The file store of one fake workspace. */
export interface SlackFiles {
	uploads: FakeUpload[];
	/** Every GET of a shared file: its path and the bearer token it carried. */
	fileFetches: Array<{ path: string; token?: string }>;
	/** files.getUploadURLExternal, files.completeUploadExternal and files.info. */
	methods: Record<string, (p: Record<string, unknown>) => Record<string, unknown>>;
	share(file: {
		name: string;
		mimetype: string;
		data: Buffer;
		size?: number;
		/** Shared in a Slack Connect channel: the event carries only the id (files.info gives the rest). */
		connect?: boolean;
		/** The channel it was shared in (files.info lists it). */
		channel?: string;
	}): FakeSharedFile | FakeConnectFile;
	/** Problems of the image blocks' `slack_file`s in a message posted to `channel` (empty: Slack shows them). */
	blockFileProblems(blocks: unknown, channel: string): string[];
	/** GET /files-pri/…: the bytes, for the bot token only. False when the path is not a file URL. */
	serve(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
	/** POST /upload/<id>: the bytes of an upload. False when the path is not an upload URL. */
	receive(res: ServerResponse, url: URL, params: Record<string, unknown>, raw: Buffer): boolean;
}

/** A file store; `baseUrl()` is the fake's origin once it listens, `nextId()` a fresh number. */
export function createSlackFiles(teamId: string, baseUrl: () => string, nextId: () => number): SlackFiles {
	const files = new Map<string, StoredFile>();
	const byPath = new Map<string, StoredFile>();
	const uploads: FakeUpload[] = [];
	const fileFetches: SlackFiles["fileFetches"] = [];

	const store = (file: Omit<StoredFile, "path" | "channels"> & { channel?: string }): StoredFile => {
		const path = `/files-pri/${teamId}-${file.id}/${encodeURIComponent(file.name)}`;
		const { channel, ...rest } = file;
		const stored: StoredFile = { ...rest, path, channels: new Set(channel ? [channel] : []) };
		files.set(stored.id, stored);
		byPath.set(path, stored);
		return stored;
	};
	const urls = (f: StoredFile) => ({
		url_private: `${baseUrl()}${f.path}`,
		url_private_download: `${baseUrl()}${f.path}?download=1`,
		permalink: `https://fake.slack.com/files/U0BOT/${f.id}/${encodeURIComponent(f.name)}`,
	});
	const fileObject = (f: StoredFile) => ({
		id: f.id,
		name: f.name,
		title: f.title ?? f.name,
		mimetype: f.mimetype,
		filetype: extensionOf(f.name),
		size: f.size,
		mode: "hosted",
		file_access: "visible",
		...urls(f),
		channels: [...f.channels],
		...(f.altText !== undefined ? { alt_txt: f.altText } : {}),
	});
	const lookup = (ref: { id?: unknown; url?: unknown }): StoredFile | undefined => {
		if (typeof ref.id === "string") return files.get(ref.id);
		if (typeof ref.url !== "string") return undefined;
		return [...files.values()].find((f) => {
			const u = urls(f);
			return ref.url === u.url_private || ref.url === u.permalink;
		});
	};

	const methods: SlackFiles["methods"] = {
		"files.getUploadURLExternal": (p) => {
			if (typeof p.alt_txt === "string" && p.alt_txt.length > 1000)
				return { ok: false, error: "invalid_arguments", errors: ["alt_txt: longer than 1000 characters"] };
			const fileId = `F${nextId()}`;
			const filename = String(p.filename);
			const ext = extensionOf(filename);
			store({
				id: fileId,
				name: filename,
				mimetype: MIME_OF[ext] ?? "application/octet-stream",
				size: Number(p.length),
				pending: true,
				...(typeof p.alt_txt === "string" ? { altText: p.alt_txt } : {}),
			});
			uploads.push({
				fileId,
				filename,
				length: Number(p.length),
				completed: false,
				...(typeof p.alt_txt === "string" ? { altText: p.alt_txt } : {}),
			});
			return { upload_url: `${baseUrl()}/upload/${fileId}`, file_id: fileId };
		},
		"files.completeUploadExternal": (p) => {
			const listed = (Array.isArray(p.files) ? p.files : []) as { id: string; title?: string }[];
			for (const f of listed) {
				const up = uploads.find((u) => u.fileId === f.id);
				const stored = files.get(f.id);
				if (!up?.bytes || !stored) return { ok: false, error: "file_not_found" };
				up.completed = true;
				stored.pending = false;
				if (typeof p.channel_id === "string") {
					up.channelId = p.channel_id;
					stored.channels.add(p.channel_id);
				}
				if (typeof p.thread_ts === "string") up.threadTs = p.thread_ts;
				if (f.title !== undefined) {
					up.title = f.title;
					stored.title = f.title;
				}
				if (typeof p.initial_comment === "string") up.initialComment = p.initial_comment;
			}
			return { files: listed.map((f) => ({ id: f.id, title: f.title })) };
		},
		"files.info": (p) => {
			if (typeof p.file !== "string" || p.file === "") return { ok: false, error: "invalid_arguments" };
			const f = files.get(p.file);
			if (!f || f.pending) return { ok: false, error: "file_not_found" };
			return { file: fileObject(f), comments: [], response_metadata: { next_cursor: "" } };
		},
	};

	return {
		uploads,
		fileFetches,
		methods,
		share: (file) => {
			const f = store({
				id: `F${nextId()}`,
				name: file.name,
				mimetype: file.mimetype,
				size: file.size ?? file.data.length,
				data: file.data,
				pending: false,
				...(file.channel ? { channel: file.channel } : {}),
			});
			if (file.connect)
				return { id: f.id, mode: "file_access", file_access: "check_file_info", created: 0, timestamp: 0, user: "" };
			const { url_private, url_private_download } = urls(f);
			return {
				id: f.id,
				name: f.name,
				mimetype: f.mimetype,
				filetype: extensionOf(f.name),
				size: f.size,
				url_private,
				url_private_download,
				mode: "hosted",
			};
		},
		blockFileProblems: (blocks, channel) => {
			if (!Array.isArray(blocks)) return [];
			const problems: string[] = [];
			blocks.forEach((raw, i) => {
				const b = raw as { type?: unknown; slack_file?: { id?: unknown; url?: unknown } };
				if (b.type !== "image" || b.slack_file === undefined) return;
				const where = `[json-pointer:/blocks/${i}/slack_file]`;
				const ref = b.slack_file;
				const f = lookup(ref);
				if ((ref.id !== undefined) === (ref.url !== undefined))
					problems.push(`must provide exactly one of id or url ${where}`);
				else if (!f || f.pending || !f.channels.has(channel) || !IMAGE_TYPES.has(extensionOf(f.name)))
					problems.push(`invalid slack file ${where}`);
			});
			return problems;
		},
		serve: (req, res, url) => {
			if (req.method !== "GET" || !url.pathname.startsWith("/files-pri/")) return false;
			const auth = req.headers.authorization;
			const token = auth?.startsWith("Bearer ") ? auth.slice(7) : undefined;
			fileFetches.push({ path: url.pathname, ...(token ? { token } : {}) });
			const f = byPath.get(url.pathname);
			// Slack answers a url_private without the bot token with its login page (HTML), not the file.
			if (!token?.startsWith("xoxb-")) {
				res.writeHead(200, { "content-type": "text/html" });
				res.end("<!DOCTYPE html><html><body>Sign in to Slack</body></html>");
			} else if (!f?.data) {
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ ok: false, error: "file_not_found" }));
			} else {
				res.writeHead(200, { "content-type": f.mimetype, "content-length": String(f.data.length) });
				res.end(f.data);
			}
			return true;
		},
		receive: (res, url, params, raw) => {
			if (!url.pathname.startsWith("/upload/")) return false;
			const id = url.pathname.slice("/upload/".length);
			const up = uploads.find((u) => u.fileId === id);
			if (!up) {
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ ok: false }));
				return true;
			}
			const file = Object.values(params).find((v) => Buffer.isBuffer(v));
			up.bytes = Buffer.isBuffer(file) ? file : raw;
			const stored = files.get(id);
			if (stored) stored.data = up.bytes;
			res.writeHead(200, { "content-type": "text/plain" });
			res.end(`OK - ${up.bytes.length}`);
			return true;
		},
	};
}
