// The archive of an Apple Health export (what the Health app writes), wherever
// its files are: inside export.zip (read with yauzl: random access through
// the central directory, zip64, each entry inflated as a stream, never loaded
// whole), or already extracted (the main XML's path, or its folder).
//
// The main file is found by what it is, not by its name: the phone names it
// in its own language (`export.xml`, `exportación.xml`, `导出.xml`, `dati
// esportati.xml`…), sometimes with no `apple_health_export/` folder around it.
// It is the first `.xml` at the top or one folder down, other than the CDA
// document (`export_cda.xml`, `*_cda.xml`), whose root element is
// `HealthData`. Phones write zip entry names in UTF-8 without the zip's UTF-8
// flag, so a name is read as UTF-8 when its bytes are valid UTF-8 (and
// NFC-normalised: one Spanish phone wrote NFD), as CP437 otherwise. macOS's
// `__MACOSX/` and `._*` companions are not the export's. The route files
// (workout-routes/*.gpx, by file name, as FileReference names them) and the
// ECG files (electrocardiograms/*.csv) are the ones beside the main file.
import { createReadStream, type Dirent } from 'node:fs';
import { open as openFile, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { ImportInputError } from './errors.js';
import { utf16Order } from './xml-tokenizer.js';

export interface ArchiveEntry {
  /** How messages name it: `export.zip:apple_health_export/export.xml`, or the path. */
  label: string;
  /** Bytes once decompressed. */
  size: number;
  open(): Promise<Readable>;
}

export interface Archive {
  xml: ArchiveEntry;
  /** GPX files by file name. */
  routes: Map<string, ArchiveEntry>;
  ecgs: ArchiveEntry[];
  close(): void;
}

const ZIP_MAGIC = 0x04034b50;
const EMPTY_ZIP_MAGIC = 0x06054b50;
const READ_CHUNK = 256 * 1024;
/** Bytes read from a candidate's start to find its root element: past the XML declaration and a DTD of any iOS so far (~15 KB). */
const SNIFF_BYTES = 256 * 1024;
const ROOT = 'HealthData';
const UTF8_FLAG = 0x800;
const UNICODE_PATH_FIELD = 0x7075;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

async function startsLikeZip(path: string): Promise<boolean> {
  const handle = await openFile(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    if (bytesRead < 4) return false;
    const magic = head.readUInt32LE(0);
    return magic === ZIP_MAGIC || magic === EMPTY_ZIP_MAGIC;
  } finally {
    await handle.close();
  }
}

/** A zip entry's name: yauzl's reading when the zip says how it is encoded, else UTF-8 when the bytes are UTF-8, else CP437 (yauzl's). */
export function entryName(entry: Pick<yauzl.Entry, 'fileName' | 'fileNameRaw' | 'generalPurposeBitFlag' | 'extraFields'>): string {
  const declared = (entry.generalPurposeBitFlag & UTF8_FLAG) !== 0 || entry.extraFields.some((field) => field.id === UNICODE_PATH_FIELD);
  if (declared) return entry.fileName.normalize('NFC');
  try {
    return strictUtf8.decode(entry.fileNameRaw).replace(/\\/g, '/').normalize('NFC');
  } catch {
    return entry.fileName;
  }
}

/** The root element's name of an XML text's start, or null when none shows (not XML, or the start is cut too short). */
export function rootElementName(head: string): string | null {
  const text = head.replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  // The first tag that is not a declaration, a DOCTYPE's internal subset or an instruction.
  let from = 0;
  for (;;) {
    const lt = text.indexOf('<', from);
    if (lt === -1) return null;
    const next = text[lt + 1];
    if (next === '?' || next === '!') {
      if (text.startsWith('<!DOCTYPE', lt)) {
        // Past the internal subset: `]` then `>`, or a plain `>`.
        const subset = text.indexOf('[', lt);
        const close = text.indexOf('>', lt);
        if (close === -1) return null;
        if (subset !== -1 && subset < close) {
          const end = text.indexOf(']>', subset);
          const endSpaced = /\]\s*>/.exec(text.slice(subset));
          if (end === -1 && endSpaced === null) return null;
          from = endSpaced === null ? end + 2 : subset + endSpaced.index + endSpaced[0].length;
        } else {
          from = close + 1;
        }
      } else {
        from = lt + 2;
      }
      continue;
    }
    const match = /^<([^\s/>!?]+)/.exec(text.slice(lt, lt + 256));
    return match === null ? null : match[1];
  }
}

/** The first bytes of a file as text, and whether reading them failed (a damaged entry). */
async function readHead(input: Readable): Promise<{ text: string; damaged: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let damaged = false;
  try {
    for await (const chunk of input) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= SNIFF_BYTES) break;
    }
  } catch {
    damaged = true;
  } finally {
    input.destroy();
  }
  const head = Buffer.concat(chunks).subarray(0, SNIFF_BYTES);
  // A file saved again as UTF-16 is still found as the export, so that reading it can say what is wrong.
  const utf16 = utf16Order(head);
  const text = utf16 ? new TextDecoder(utf16).decode(head) : head.toString('utf8');
  return { text, damaged };
}

/** 'yes' when the root is HealthData; 'unreadable' when the file breaks before its root shows (reading it names where). */
async function isHealthData(entry: ArchiveEntry): Promise<'yes' | 'no' | 'unreadable'> {
  try {
    const head = await readHead(await entry.open());
    const root = rootElementName(head.text);
    if (root === ROOT) return 'yes';
    return root === null && head.damaged ? 'unreadable' : 'no';
  } catch {
    return 'unreadable';
  }
}

/** The first candidate whose root is HealthData; else the first that could not be read far enough to tell (its import names the damage). */
async function mainOf<T>(candidates: readonly T[], entry: (candidate: T) => ArchiveEntry): Promise<T | undefined> {
  let unreadable: T | undefined;
  for (const candidate of candidates) {
    const verdict = await isHealthData(entry(candidate));
    if (verdict === 'yes') return candidate;
    if (verdict === 'unreadable') unreadable ??= candidate;
  }
  return unreadable;
}

/** A candidate for the main file: an `.xml` at the top or one folder down, not the CDA document, not a macOS companion. */
function isCandidate(name: string): boolean {
  const parts = name.split('/');
  const file = parts[parts.length - 1];
  const lower = file.toLowerCase();
  return parts.length <= 2 && lower.endsWith('.xml') && !lower.endsWith('_cda.xml') && !file.startsWith('._') && parts[0] !== '__MACOSX';
}

function isCompanion(name: string): boolean {
  return name.startsWith('__MACOSX/') || basename(name).startsWith('._');
}

function plainFile(path: string, size: number): ArchiveEntry {
  return { label: path, size, open: async () => createReadStream(path, { highWaterMark: READ_CHUNK }) };
}

async function filesIn(dir: string, extension: string): Promise<ArchiveEntry[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const entries: ArchiveEntry[] = [];
  for (const name of names.filter((n) => n.toLowerCase().endsWith(extension) && !n.startsWith('._')).sort()) {
    const path = join(dir, name);
    entries.push(plainFile(path, (await stat(path)).size));
  }
  return entries;
}

async function openExtracted(xmlPath: string): Promise<Archive> {
  const dir = dirname(xmlPath);
  const routes = new Map((await filesIn(join(dir, 'workout-routes'), '.gpx')).map((entry) => [basename(entry.label), entry]));
  return {
    xml: plainFile(xmlPath, (await stat(xmlPath)).size),
    routes,
    ecgs: await filesIn(join(dir, 'electrocardiograms'), '.csv'),
    close: () => {},
  };
}

/** The folder's main file: its own `.xml` files first, then those one folder down. */
async function findInFolder(path: string): Promise<string> {
  const candidates: string[] = [];
  const listing = await readdir(path, { withFileTypes: true });
  const sorted = listing.sort((a, b) => (a.name < b.name ? -1 : 1));
  const isFile = (entry: Dirent) => entry.isFile() || entry.isSymbolicLink();
  for (const entry of sorted) if (isFile(entry) && isCandidate(entry.name)) candidates.push(join(path, entry.name));
  for (const entry of sorted) {
    if (!entry.isDirectory() || entry.name === '__MACOSX') continue;
    const inner = await readdir(join(path, entry.name), { withFileTypes: true }).catch(() => []);
    for (const file of inner.sort((a, b) => (a.name < b.name ? -1 : 1))) if (isFile(file) && isCandidate(file.name)) candidates.push(join(path, entry.name, file.name));
  }
  const main = await mainOf(candidates, (candidate) => plainFile(candidate, 0));
  if (main !== undefined) return main;
  throw new ImportInputError(`${path}: no Apple Health export in this folder (no .xml here or one folder down whose root element is <HealthData>)`);
}

async function openZip(path: string): Promise<Archive> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true });
  } catch (error) {
    throw new ImportInputError(`${path}: not a zip archive, or a truncated or damaged one (${(error as Error).message}); copy or export it again`);
  }
  const entryOf = (entry: yauzl.Entry, name: string): ArchiveEntry => ({
    label: `${path}:${name}`,
    size: entry.uncompressedSize,
    open: async () => {
      try {
        return await zip.openReadStreamPromise(entry);
      } catch (error) {
        throw new ImportInputError(`${path}:${name}: cannot be read (${(error as Error).message})`);
      }
    },
  });
  const files: Array<{ name: string; entry: ArchiveEntry }> = [];
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entryName(entry);
      if (name.endsWith('/') || isCompanion(name)) continue;
      files.push({ name, entry: entryOf(entry, name) });
    }
  } catch (error) {
    zip.close();
    throw new ImportInputError(`${path}: the zip's directory is damaged (${(error as Error).message}); copy or export it again`);
  }
  const main = await mainOf(
    files.filter((file) => isCandidate(file.name)),
    (file) => file.entry,
  );
  if (main === undefined) {
    zip.close();
    const xmls = files.filter((file) => file.name.toLowerCase().endsWith('.xml')).map((file) => file.name);
    throw new ImportInputError(
      `${path}: no Apple Health export inside: no .xml at the top or one folder down whose root element is <HealthData>${xmls.length > 0 ? ` (found ${xmls.slice(0, 5).join(', ')})` : ''}; is this the export.zip of the Health app?`,
    );
  }
  const folder = main.name.slice(0, main.name.lastIndexOf('/') + 1);
  const routes = new Map<string, ArchiveEntry>();
  const ecgs: ArchiveEntry[] = [];
  for (const { name, entry } of files) {
    if (!name.startsWith(folder)) continue;
    const lower = name.toLowerCase();
    if (lower.endsWith('.gpx')) routes.set(basename(name), entry);
    else if (lower.endsWith('.csv') && name.slice(folder.length).split('/').includes('electrocardiograms')) ecgs.push(entry);
  }
  ecgs.sort((a, b) => (a.label < b.label ? -1 : 1));
  return { xml: main.entry, routes, ecgs, close: () => zip.close() };
}

/** Opens export.zip, the export's main XML file, or the folder an export was extracted to. */
export async function openArchive(path: string): Promise<Archive> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new ImportInputError(`${path}: no such file or folder`);
  }
  if (info.isDirectory()) return openExtracted(await findInFolder(path));
  if ((await startsLikeZip(path)) || path.toLowerCase().endsWith('.zip')) return openZip(path);
  if ((await isHealthData(plainFile(path, info.size))) === 'no') {
    throw new ImportInputError(`${path}: neither a zip archive nor an Apple Health export XML (its root element is not <HealthData>); name export.zip, the export's main .xml or its folder`);
  }
  return openExtracted(path);
}
