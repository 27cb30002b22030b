/**
 * `/lesson material add|list|remove` and `/lesson start … library:<name>`, once for every platform: a
 * community's library of documents (docs/material.md). Adding downloads the file as a lesson's material is
 * downloaded (material-file.ts: the platform's own file hosts, the byte cap) and reads it within the same limits
 * (a PDF, a text or Markdown file), then stores its index (agent/store/library-store.ts). Only admins add and
 * remove, unless the community's rules let members add. A lesson started from an item gets a copy of its index
 * as its own material, so search and citations work as for a file attached at start.
 */

import {
	DEFAULT_MATERIAL_LIMITS,
	LIBRARY_MAX_ITEMS,
	LIBRARY_NAME_MAX,
	type LibraryItem,
	type LibraryStore,
	type MaterialLimits,
	readDocument,
} from "../../agent/index.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { MaterialUpload } from "../../core/contracts/tutor.ts";
import { DEFAULT_LOCALE, type Locale, t, tn } from "../../i18n/index.ts";
import type { ImageSource } from "./images.ts";
import type { LessonState } from "./lesson-state.ts";
import { fetchMaterial, type MaterialSource } from "./material-file.ts";
import { adminHintIn } from "./notices.ts";
import type { Actor, PlatformPort } from "./port.ts";

/** The library commands, parsed (members of LessonCommand). */
export type LibraryCommand =
	/** `file` missing: the usage is shown. `name`: its name in the library (default: the file's). */
	| { kind: "material-add"; file?: MaterialSource; name?: string }
	| { kind: "material-list" }
	| { kind: "material-remove"; name: string };

/** What the library flows need. */
export interface LibraryDeps {
	store: LibraryStore;
	port: PlatformPort;
	state: LessonState;
	logger: Logger;
	now: () => Date;
	/** Where the platform's files may be downloaded from. */
	files?: ImageSource;
	/** The bounds a document is read within (the lessons' own: docs/material.md). */
	limits?: Partial<MaterialLimits>;
}

/** The library flows of one platform. */
export interface LibraryFlows {
	/** Run a library command; the reply, or undefined when the actor was told (a refusal). */
	run(actor: Actor, community: string, command: LibraryCommand): Promise<string | undefined>;
	/** A lesson's material from the library (the item's index), or why not (the library's names listed). */
	material(
		community: string,
		name: string,
		locale: Locale,
	): Promise<{ ok: true; upload: MaterialUpload } | { ok: false; why: string }>;
	/**
	 * The library's names matching what was typed (case-insensitive; those starting with it first), at most `limit`:
	 * what a name option suggests as it is typed. May reject when the store fails (the caller bounds it).
	 */
	names(community: string, typed: string, limit: number): Promise<string[]>;
}

/** A name as the library keeps it: one line, no markup characters, at most LIBRARY_NAME_MAX characters. */
export function libraryName(raw: string): string {
	return raw
		.replace(/[\p{Cc}`*_~|<>[\]]/gu, " ")
		.replace(/\s+/g, " ")
		.trim()
		.slice(0, LIBRARY_NAME_MAX)
		.trim();
}

/** Create the library flows over a store. */
export function createLibraryFlows(deps: LibraryDeps): LibraryFlows {
	const { store, port, state, logger } = deps;
	const esc = (text: string) => port.style.escape?.(text) ?? text;
	const bold = (text: string) => port.style.bold?.(text) ?? `**${text}**`;
	const size = (item: Pick<LibraryItem, "pages" | "unit">, locale: Locale) =>
		tn(locale, item.unit === "part" ? "library.parts" : "library.pages", item.pages);
	const mention = port.style.mention ?? ((id: string) => `<@${id}>`);
	const names = (items: LibraryItem[]) => items.map((i) => bold(esc(i.name))).join(", ");

	const add = async (actor: Actor, community: string, file: MaterialSource | undefined, given?: string) => {
		const locale = actor.locale ?? DEFAULT_LOCALE;
		const rules = await state.rules(community);
		if (!rules.membersAddMaterial && !(await actor.isAdmin())) {
			await actor.notify(t(locale, "library.adminsOnlyAdd", { adminHint: adminHintIn(port.style, locale) }));
			return undefined;
		}
		if (!file) return t(locale, "library.noFile");
		const fileName = "file" in file ? (file.file.name ?? "material") : file.name;
		const name = libraryName(given ?? fileName);
		if (name === "") return t(locale, "library.noName");
		const refused = (why: string) => t(locale, "library.refused", { name: bold(esc(name)), why: esc(why) });
		// Before the download: a taken name or a full library is known without it.
		const listed = await store.list(community);
		if (listed.some((i) => i.name.toLowerCase() === name.toLowerCase()))
			return t(locale, "library.exists", { name: bold(esc(name)) });
		if (listed.length >= LIBRARY_MAX_ITEMS) return t(locale, "library.full", { max: LIBRARY_MAX_ITEMS });
		const maxBytes = deps.limits?.maxBytes ?? DEFAULT_MATERIAL_LIMITS.maxBytes;
		const fetched = await fetchMaterial(file, deps.files, maxBytes);
		if (!fetched.ok) return refused(fetched.why);
		if (!("data" in fetched.upload)) return refused("not a file");
		// Read under the file's own name (a `.md` name makes `#` lines headings); cited under the library's name.
		const read = await readDocument(fetched.upload.data, {
			name: fileName,
			...(deps.limits ? { limits: deps.limits } : {}),
		});
		if (!read.ok) return refused(read.message);
		const index = { ...read.index, name };
		const item: LibraryItem = {
			name,
			pages: index.pageCount,
			...(index.unit ? { unit: index.unit } : {}),
			addedBy: { id: actor.by.id, name: actor.by.name ?? "" },
			addedAt: deps.now().toISOString(),
		};
		const added = await store.add(community, item, index);
		if (!added.ok)
			return added.code === "exists"
				? t(locale, "library.exists", { name: bold(esc(name)) })
				: t(locale, "library.full", { max: LIBRARY_MAX_ITEMS });
		logger.info({ community, pages: item.pages }, `${port.name}: a document was added to the library`);
		return [
			t(locale, "library.added", { name: bold(esc(name)), size: size(item, locale) }),
			...index.warnings.map((w) => esc(w.message)),
		].join("\n");
	};

	const list = async (actor: Actor, community: string) => {
		const locale = actor.locale ?? DEFAULT_LOCALE;
		const items = await store.list(community);
		if (items.length === 0) return t(locale, "library.empty");
		const lines = items.map((i) =>
			t(locale, "library.item", {
				name: bold(esc(i.name)),
				size: size(i, locale),
				who: mention(i.addedBy.id),
				date: i.addedAt.slice(0, 10),
			}),
		);
		return [t(locale, "library.title", { count: items.length, max: LIBRARY_MAX_ITEMS }), ...lines].join("\n");
	};

	const remove = async (actor: Actor, community: string, name: string) => {
		const locale = actor.locale ?? DEFAULT_LOCALE;
		if (!(await actor.isAdmin())) {
			await actor.notify(t(locale, "library.adminsOnlyRemove", { adminHint: adminHintIn(port.style, locale) }));
			return undefined;
		}
		const gone = await store.remove(community, libraryName(name));
		if (gone) {
			logger.info({ community }, `${port.name}: a document was removed from the library`);
			return t(locale, "library.removed", { name: bold(esc(gone.name)) });
		}
		return unknown(community, name, locale);
	};

	/** The refusal of a name the library does not hold, with what it holds. */
	const unknown = async (community: string, name: string, locale: Locale) => {
		const items = await store.list(community);
		const head = t(locale, "library.unknown", { name: bold(esc(libraryName(name))) });
		return `${head} ${items.length === 0 ? t(locale, "library.empty") : t(locale, "library.holds", { names: names(items) })}`;
	};

	return {
		run(actor, community, command) {
			switch (command.kind) {
				case "material-add":
					return add(actor, community, command.file, command.name);
				case "material-list":
					return list(actor, community);
				case "material-remove":
					return remove(actor, community, command.name);
			}
		},
		async names(community, typed, limit) {
			const wanted = typed.trim().toLowerCase();
			const all = (await store.list(community)).map((item) => item.name);
			const starts = all.filter((n) => n.toLowerCase().startsWith(wanted));
			const contains = all.filter((n) => !n.toLowerCase().startsWith(wanted) && n.toLowerCase().includes(wanted));
			return [...starts, ...contains].slice(0, Math.max(0, limit));
		},
		async material(community, name, locale) {
			const found = await store.get(community, libraryName(name));
			if (!found) return { ok: false, why: await unknown(community, name, locale) };
			return { ok: true, upload: { name: found.item.name, index: found.index } };
		},
	};
}
