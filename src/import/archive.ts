// The archive of an Apple Health export (what the Health app writes), wherever
// its files are: inside export.zip
// (read with yauzl: random access through the central directory, zip64, each
// entry inflated as a stream, never loaded whole), or already extracted (an
// export.xml path, or the apple_health_export folder). Finds export.xml, the
// workout-routes/*.gpx files (by file name, as FileReference names them) and
// the electrocardiograms/*.csv files.
import { createReadStream } from 'node:fs';
import { open as openFile, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { ImportInputError } from './errors.js';

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

function isExportXml(name: string): boolean {
  return basename(name) === 'export.xml';
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
  for (const name of names.filter((n) => n.toLowerCase().endsWith(extension)).sort()) {
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

async function openZip(path: string): Promise<Archive> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true });
  } catch (error) {
    throw new ImportInputError(`${path}: not a complete zip archive (${(error as Error).message}); the file is probably truncated: copy or export it again`);
  }
  const entryOf = (entry: yauzl.Entry): ArchiveEntry => ({
    label: `${path}:${entry.fileName}`,
    size: entry.uncompressedSize,
    open: async () => {
      try {
        return await zip.openReadStreamPromise(entry);
      } catch (error) {
        throw new ImportInputError(`${path}:${entry.fileName}: cannot be read (${(error as Error).message})`);
      }
    },
  });
  let xml: yauzl.Entry | null = null;
  const routes = new Map<string, ArchiveEntry>();
  const ecgs: ArchiveEntry[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName;
      if (name.endsWith('/')) continue;
      const lower = name.toLowerCase();
      if (isExportXml(name)) {
        // The shallowest export.xml wins (apple_health_export/export.xml).
        if (xml === null || name.split('/').length < xml.fileName.split('/').length) xml = entry;
      } else if (lower.endsWith('.gpx')) {
        routes.set(basename(name), entryOf(entry));
      } else if (lower.endsWith('.csv')) {
        ecgs.push(entryOf(entry));
      }
    }
  } catch (error) {
    zip.close();
    throw new ImportInputError(`${path}: the zip's directory is damaged (${(error as Error).message}); copy or export it again`);
  }
  if (xml === null) {
    zip.close();
    throw new ImportInputError(`${path}: no export.xml inside; is this the export.zip of the Health app?`);
  }
  ecgs.sort((a, b) => (a.label < b.label ? -1 : 1));
  return { xml: entryOf(xml), routes, ecgs, close: () => zip.close() };
}

/** Opens export.zip, an export.xml, or the folder an export was extracted to. */
export async function openArchive(path: string): Promise<Archive> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new ImportInputError(`${path}: no such file`);
  }
  if (info.isDirectory()) {
    const xmlPath = join(path, 'export.xml');
    try {
      await stat(xmlPath);
    } catch {
      throw new ImportInputError(`${path}: no export.xml in this folder`);
    }
    return openExtracted(xmlPath);
  }
  return (await startsLikeZip(path)) ? openZip(path) : openExtracted(path);
}
