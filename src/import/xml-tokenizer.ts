// A streaming XML tokenizer for export.xml, written for its speed on the one
// shape Apple writes: millions of short, attribute-only elements. saxes (still
// used for GPX) walks every character through a state machine and was a
// quarter of the import's CPU plus most of its garbage; here the scanning is
// done by native `indexOf` — the next `<`, the closing quote of each
// attribute value — and strings are sliced once.
//
// It reads UTF-8 bytes as latin1 text (one char per byte, a plain copy):
// every byte that matters to XML's structure is ASCII, and UTF-8 never uses
// ASCII bytes inside a multi-byte character, so structure is found correctly;
// only the values and names that hold bytes above 0x7F are decoded as UTF-8,
// and a value equal to its attribute's previous one reuses that decoding.
// Decoding the whole file to UTF-16 first cost as much as the scanning.
//
// It still refuses what is not well-formed XML, naming line and column:
// mismatched or unclosed tags, a missing or second root, attributes without a
// quoted value or given twice, `<` inside a value, unknown entities and bad
// character references, control characters, text outside the root, a document
// that ends inside a tag. It does not read DTDs: an entity declared in the
// internal subset is refused as unknown (Apple's subset declares none).
// Lenient reading (`--lenient`) is for the few exports a phone wrote broken
// (iOS 8 wrote third-party metadata keys with spaces as attribute names): a
// start tag inside the root that is not well-formed is skipped with its
// element, reported through `skipped`, and reading goes on after it.
// Attribute values are normalised as XML says (tab, CR and LF become spaces,
// then references are expanded). Names are checked for ASCII punctuation
// only: any non-ASCII character is let through.

const LT_IN_TAG = '"<" is not allowed inside a tag or an attribute value';

export type XmlAttributes = Record<string, string>;

export interface XmlTokenHandler {
  /** The text between `<!DOCTYPE` and its closing `>`. */
  doctype(text: string): void;
  /** A start tag (or an empty-element tag, which is followed by `close`); `line` is where its `<` is. */
  open(name: string, attributes: XmlAttributes, line: number): void;
  close(name: string): void;
  /** Lenient reading: a malformed element inside the root was skipped (its name, the raw text of its start tag, its line, what was wrong). */
  skipped?(name: string, tag: string, line: number, reason: string): void;
}

export interface XmlTokenizerOptions {
  /** Skip a malformed element inside the root instead of refusing the document. */
  lenient?: boolean;
}

export class XmlSyntaxError extends Error {
  override readonly name = 'XmlSyntaxError';
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
    /** Found where the document ends (cut short, no root): no element to skip, so lenient reading stops there too. */
    readonly atEnd = false,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
  }
}

/** A tag, comment or DOCTYPE longer than this is refused rather than buffered without end. */
const MAX_CONSTRUCT = 16 << 20;
const CONTROL_CHARACTER = /[\x00-\x08\x0B\x0C\x0E-\x1F]/;
const VALUE_NEEDS_WORK = /[&\t\n\r\x80-\xFF]/;
const NON_ASCII = /[\x80-\xFF]/;
/** U+FEFF in UTF-8, as latin1. */
const BYTE_ORDER_MARK = '\xEF\xBB\xBF';
const PREDEFINED_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** A reference that reads as an entity name (quoted in its refusal); anything else after a bare "&" is not quoted. */
const ENTITY_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/;

const LT = 60;
const GT = 62;
const SLASH = 47;
const BANG = 33;
const QUESTION = 63;
const EQUALS = 61;
const DOUBLE_QUOTE = 34;
const SINGLE_QUOTE = 39;
const LINE_FEED = 10;

/** ASCII name characters: 1 may start a name, 2 may only continue one. Bytes of non-ASCII characters are let through. */
const NAME_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z_:]/.test(ch)) NAME_CHAR[c] = 1;
  else if (/[0-9.-]/.test(ch)) NAME_CHAR[c] = 2;
}

const isSpace = (c: number) => c === 32 || c === 10 || c === 9 || c === 13;
const isNameStart = (c: number) => (c < 128 ? NAME_CHAR[c] === 1 : true);
const isNameChar = (c: number) => (c < 128 ? NAME_CHAR[c] !== 0 : true);

/** The text of UTF-8 bytes held as latin1 chars. */
const utf8 = (latin1: string) => Buffer.from(latin1, 'latin1').toString('utf8');

/** An attribute name, interned, with the raw and decoded text of its latest value. */
interface NameSlot {
  name: string;
  raw: string;
  value: string;
  /** The start tag that last gave it a value (tags are numbered), for the duplicate check. */
  tag: number;
}

const NEW_SLOT = -1;

const NAME_SLOTS = 1024;

/** Returned by a construct's reader when the buffer ends before the construct does. */
const INCOMPLETE = -1;

export class XmlTokenizer {
  /** Text not consumed yet; `pos` is where consumption stands in it. */
  private buffer = '';
  private pos = 0;
  /** Lines are counted lazily up to `counted`; `lineStart` is the index just past the last newline seen. */
  private counted = 0;
  private lines = 1;
  private lineStart = 0;
  private readonly open: string[] = [];
  private readonly names: Array<NameSlot | undefined> = new Array(NAME_SLOTS);
  private sawRoot = false;
  private tags = 0;
  private sawDoctype = false;
  private began = false;
  /** Nothing but a byte order mark came before: where the XML declaration may stand. */
  private atStart = true;
  /** Where the start tag being read begins (-1 while reading anything else): where lenient reading skips from. */
  private tagStart = -1;
  /** The buffer index of the last failure. */
  private failedAt = 0;
  private readonly lenient: boolean;

  constructor(
    private readonly handler: XmlTokenHandler,
    options: XmlTokenizerOptions = {},
  ) {
    this.lenient = options.lenient === true;
  }

  /** The line that parsing has reached. */
  get line(): number {
    return this.lineAt(this.pos);
  }

  write(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    if (this.pos < this.buffer.length) {
      this.lineAt(this.pos);
      this.buffer = this.buffer.slice(this.pos) + text;
    } else {
      this.lineAt(this.buffer.length);
      this.buffer = text;
    }
    this.counted -= this.pos;
    this.lineStart -= this.pos;
    this.pos = 0;
    if (CONTROL_CHARACTER.test(text)) {
      const index = this.buffer.length - text.length + text.search(CONTROL_CHARACTER);
      this.fail(index, `the character U+${this.buffer.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML`);
    }
    if (!this.began) {
      // A byte order mark may arrive a byte at a time.
      if (this.buffer.length < 3 && BYTE_ORDER_MARK.startsWith(this.buffer)) return;
      this.began = true;
      if (this.buffer.startsWith(BYTE_ORDER_MARK)) this.pos = 3;
    }
    this.parse(false);
  }

  /** The document is complete: anything still open or half-read is an error. */
  close(): void {
    this.parse(true);
    if (this.pos < this.buffer.length) this.fail(this.pos, 'the document ends inside a tag, comment or declaration', true);
    if (!this.sawRoot) this.fail(this.pos, 'the document has no root element', true);
    if (this.open.length > 0) this.fail(this.pos, `the document ends before <${this.open[this.open.length - 1]}> is closed`, true);
  }

  private parse(final: boolean): void {
    for (;;) {
      try {
        this.scan(final);
        return;
      } catch (error) {
        if (!this.lenient || !(error instanceof XmlSyntaxError)) throw error;
        const skipped = this.skipMalformed(error, final);
        if (skipped === false) throw error;
        if (skipped === 'wait') return;
      }
    }
  }

  /**
   * After a failure inside a start tag within the root: skips that element
   * (to the end of its tag, and to its end tag unless it was empty) and
   * reports it. 'wait' when the element's end has not arrived yet (reading
   * resumes at its start with the next bytes); false when there is nothing
   * to skip (the failure is not in such a tag).
   */
  private skipMalformed(error: XmlSyntaxError, final: boolean): 'skipped' | 'wait' | false {
    const lt = this.tagStart;
    if (lt < 0 || this.open.length === 0) return false;
    const buffer = this.buffer;
    const nameEnd = this.nameEnd(lt + 1);
    if (nameEnd === lt + 1) return false;
    const name = buffer.slice(lt + 1, nameEnd);
    const p = this.tagEnd(nameEnd, true);
    let end: number;
    if (p < buffer.length && buffer.charCodeAt(p) === LT) {
      // A "<" outside any value: the tag never closed (or holds a tag); reading goes on at that "<".
      end = p;
    } else if (p < buffer.length && buffer.charCodeAt(p) === GT && buffer.charCodeAt(p - 1) === SLASH) {
      end = p + 1;
    } else if (p < buffer.length || final) {
      // Not empty: skip its content up to its own end tag.
      const after = this.endOfContent(name, p);
      if (after === INCOMPLETE) {
        if (!final) return this.waitAt(lt);
        end = buffer.length;
      } else {
        end = after;
      }
    } else {
      return this.waitAt(lt);
    }
    let line = error.line;
    for (let i = buffer.indexOf('\n', lt); i !== -1 && i < this.failedAt; i = buffer.indexOf('\n', i + 1)) line--;
    const tag = buffer.slice(lt, Math.min(p + 1, buffer.length));
    this.handler.skipped?.(NON_ASCII.test(name) ? utf8(name) : name, NON_ASCII.test(tag) ? utf8(tag) : tag, line, error.reason);
    this.pos = end;
    this.tagStart = -1;
    this.atStart = false;
    return 'skipped';
  }

  /** Just past the end tag that closes an element `name` whose content starts at `from` (elements of the same name inside it counted), or INCOMPLETE. */
  private endOfContent(name: string, from: number): number {
    const buffer = this.buffer;
    let depth = 1;
    for (let lt = buffer.indexOf('<', from); lt !== -1; lt = buffer.indexOf('<', lt + 1)) {
      const closing = buffer.charCodeAt(lt + 1) === SLASH;
      const at = closing ? lt + 2 : lt + 1;
      if (!buffer.startsWith(name, at) || this.nameEnd(at) !== at + name.length) continue;
      // A quoted value may hold ">": the tag ends at the first one outside quotes.
      const gt = this.tagEnd(at + name.length);
      if (gt >= buffer.length || buffer.charCodeAt(gt) !== GT) return INCOMPLETE;
      if (closing) {
        if (--depth === 0) return gt + 1;
      } else if (buffer.charCodeAt(gt - 1) !== SLASH) {
        depth++;
      }
    }
    return INCOMPLETE;
  }

  /**
   * The index of the ">" ending a tag whose name ends at `from` (the first one
   * outside quotes), or of a "<" before it (which no value may hold; with
   * `ltInValues`, a malformed tag being skipped, only one outside quotes, and
   * a quote ends at the end of its line), or the buffer's length.
   */
  private tagEnd(from: number, ltInValues = false): number {
    const buffer = this.buffer;
    let quote = 0;
    let p = from;
    for (; p < buffer.length; p++) {
      const c = buffer.charCodeAt(p);
      if (c === LT && (quote === 0 || !ltInValues)) break;
      if (quote !== 0) {
        // Skipping a malformed tag, a quote left open ends with its line (export.xml writes a tag on one line).
        if (c === quote || (ltInValues && c === LINE_FEED)) quote = 0;
      } else if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
        quote = c;
      } else if (c === GT) {
        break;
      }
    }
    return p;
  }

  private waitAt(lt: number): 'wait' {
    this.pos = lt;
    this.tagStart = -1;
    return 'wait';
  }

  private scan(final: boolean): void {
    const buffer = this.buffer;
    const end = buffer.length;
    let pos = this.pos;
    let lt = buffer.indexOf('<', pos);
    while (pos < end) {
      if (lt === -1) {
        this.atStart = false;
        this.text(pos, end);
        pos = end;
        break;
      }
      if (lt > pos) {
        this.text(pos, lt);
        this.atStart = false;
      }
      pos = lt;
      if (lt + 1 >= end) break;
      const next = buffer.indexOf('<', lt + 1);
      const kind = buffer.charCodeAt(lt + 1);
      let after: number;
      this.tagStart = -1;
      if (kind === SLASH) after = this.endTag(lt);
      else if (kind === BANG) after = this.markup(lt, final);
      else if (kind === QUESTION) after = this.instruction(lt);
      else after = this.startTag((this.tagStart = lt), next);
      if (after === INCOMPLETE) {
        if (end - lt > MAX_CONSTRUCT) this.fail(lt, 'a tag, comment or declaration runs on past 16 MB');
        break;
      }
      // A start or end tag cannot hold a `<` (comments and declarations may).
      if (next !== -1 && next < after && kind !== BANG && kind !== QUESTION) this.fail(next, LT_IN_TAG);
      pos = after;
      this.atStart = false;
      lt = next !== -1 && next >= after ? next : buffer.indexOf('<', after);
    }
    this.pos = pos;
  }

  /** Character data: ignored inside the root (export.xml keeps everything in attributes); only spaces outside it. */
  private text(from: number, to: number): void {
    if (this.open.length > 0) return;
    const buffer = this.buffer;
    for (let i = from; i < to; i++) {
      if (!isSpace(buffer.charCodeAt(i))) this.fail(i, this.sawRoot ? 'text after the root element' : 'text before the root element');
    }
  }

  /** `next`: the first "<" after `lt` (-1 for none): one before the tag's end is refused before the element is handed on. */
  private startTag(lt: number, next: number): number {
    const buffer = this.buffer;
    const end = buffer.length;
    let p = lt + 1;
    const nameEnd = this.nameEnd(p);
    if (nameEnd >= end) return INCOMPLETE;
    if (nameEnd === p) this.fail(p, `"${buffer[p]}" cannot start a tag name`);
    const name = this.nameSlot(p, nameEnd).name;
    const attributes: XmlAttributes = {};
    const tag = ++this.tags;
    p = nameEnd;
    for (;;) {
      const spaced = p;
      while (p < end && isSpace(buffer.charCodeAt(p))) p++;
      if (p >= end) return INCOMPLETE;
      const c = buffer.charCodeAt(p);
      if (c === GT) {
        if (next !== -1 && next < p) this.fail(next, LT_IN_TAG);
        this.element(lt, name, attributes, false);
        return p + 1;
      }
      if (c === SLASH) {
        if (p + 1 >= end) return INCOMPLETE;
        if (buffer.charCodeAt(p + 1) !== GT) this.fail(p + 1, `">" expected after "/" in <${name}>`);
        if (next !== -1 && next < p) this.fail(next, LT_IN_TAG);
        this.element(lt, name, attributes, true);
        return p + 2;
      }
      if (p === spaced) this.fail(p, `a space is needed before the attribute in <${name}>`);
      const attributeEnd = this.nameEnd(p);
      if (attributeEnd >= end) return INCOMPLETE;
      if (attributeEnd === p) this.fail(p, `unexpected "${buffer[p]}" in <${name}>`);
      const slot = this.nameSlot(p, attributeEnd);
      const attribute = slot.name;
      const attributeAt = p;
      p = attributeEnd;
      while (p < end && isSpace(buffer.charCodeAt(p))) p++;
      if (p >= end) return INCOMPLETE;
      if (buffer.charCodeAt(p) !== EQUALS) this.fail(p, `attribute ${attribute} of <${name}> has no value`);
      p++;
      while (p < end && isSpace(buffer.charCodeAt(p))) p++;
      if (p >= end) return INCOMPLETE;
      const quote = buffer.charCodeAt(p);
      if (quote !== DOUBLE_QUOTE && quote !== SINGLE_QUOTE) this.fail(p, `the value of attribute ${attribute} of <${name}> is not quoted`);
      // A slot found again remembers the tag it was last given in; a new one (first use, or a hash clash) asks the object.
      if (slot.tag === tag || (slot.tag === NEW_SLOT && Object.hasOwn(attributes, attribute))) this.fail(attributeAt, `attribute ${attribute} appears twice in <${name}>`);
      slot.tag = tag;
      // Most values repeat the same attribute's previous one (type, source, device, unit): reuse that string.
      const close = buffer.indexOf(quote === DOUBLE_QUOTE ? '"' : "'", p + 1);
      if (close === -1) return INCOMPLETE;
      const raw = buffer.slice(p + 1, close);
      if (raw === slot.raw) {
        attributes[attribute] = slot.value;
      } else {
        const value = VALUE_NEEDS_WORK.test(raw) ? this.attributeValue(raw, p + 1) : raw;
        attributes[attribute] = value;
        slot.raw = raw;
        slot.value = value;
      }
      p = close + 1;
    }
  }

  /** The interned name between `from` and `to`, with the last value seen for it. */
  private nameSlot(from: number, to: number): NameSlot {
    const buffer = this.buffer;
    const length = to - from;
    const hash = (length * 31 + buffer.charCodeAt(from) * 7 + buffer.charCodeAt(from + (length >> 1)) * 13 + buffer.charCodeAt(to - 1)) & (NAME_SLOTS - 1);
    const slot = this.names[hash];
    if (slot !== undefined && slot.name.length === length && buffer.startsWith(slot.name, from)) return slot;
    // A property key read back from an object is an internalized string: later stores skip the string table.
    const text = buffer.slice(from, to);
    const name = Object.keys({ [NON_ASCII.test(text) ? utf8(text) : text]: 0 })[0];
    return (this.names[hash] = { name, raw: '', value: '', tag: NEW_SLOT });
  }

  private element(lt: number, name: string, attributes: XmlAttributes, empty: boolean): void {
    if (this.open.length === 0) {
      if (this.sawRoot) this.fail(lt, `a second root element <${name}>`);
      this.sawRoot = true;
    }
    this.handler.open(name, attributes, this.lineAt(lt));
    if (empty) this.handler.close(name);
    else this.open.push(name);
  }

  private endTag(lt: number): number {
    const buffer = this.buffer;
    const end = buffer.length;
    const nameEnd = this.nameEnd(lt + 2);
    if (nameEnd >= end) return INCOMPLETE;
    const name = nameEnd === lt + 2 ? '' : this.nameSlot(lt + 2, nameEnd).name;
    let p = nameEnd;
    while (p < end && isSpace(buffer.charCodeAt(p))) p++;
    if (p >= end) return INCOMPLETE;
    if (buffer.charCodeAt(p) !== GT || name === '') this.fail(p, `malformed closing tag </${name}`);
    const expected = this.open.pop();
    if (expected === undefined) this.fail(lt, `closing tag </${name}> without an open element`);
    if (expected !== name) this.fail(lt, `closing tag </${name}> does not match <${expected}>`);
    this.handler.close(name);
    return p + 1;
  }

  /** `<!--…-->`, `<![CDATA[…]]>` inside the root, and the one `<!DOCTYPE …>` before it. */
  private markup(lt: number, final: boolean): number {
    const buffer = this.buffer;
    if (buffer.startsWith('<!--', lt)) {
      const close = buffer.indexOf('-->', lt + 4);
      return close === -1 ? INCOMPLETE : close + 3;
    }
    if (buffer.startsWith('<![CDATA[', lt)) {
      if (this.open.length === 0) this.fail(lt, 'CDATA outside the root element');
      const close = buffer.indexOf(']]>', lt + 9);
      return close === -1 ? INCOMPLETE : close + 3;
    }
    if (buffer.startsWith('<!DOCTYPE', lt)) {
      if (this.sawRoot || this.sawDoctype) this.fail(lt, 'a DOCTYPE is only allowed once, before the root element');
      const close = this.doctypeEnd(lt + 9);
      if (close === INCOMPLETE) return INCOMPLETE;
      this.sawDoctype = true;
      this.handler.doctype(utf8(buffer.slice(lt + 9, close)).trim());
      return close + 1;
    }
    if (!final && buffer.length - lt < 9) return INCOMPLETE;
    return this.fail(lt, 'unexpected "<!" markup');
  }

  /** The index of the `>` that ends a DOCTYPE whose text starts at `from`, past quoted strings, the internal subset and its comments. */
  private doctypeEnd(from: number): number {
    const buffer = this.buffer;
    let inSubset = false;
    for (let p = from; p < buffer.length; p++) {
      const c = buffer.charCodeAt(p);
      if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
        const close = buffer.indexOf(c === DOUBLE_QUOTE ? '"' : "'", p + 1);
        if (close === -1) return INCOMPLETE;
        p = close;
      } else if (inSubset && c === LT && buffer.startsWith('<!--', p)) {
        const close = buffer.indexOf('-->', p + 4);
        if (close === -1) return INCOMPLETE;
        p = close + 2;
      } else if (c === 91 /* [ */) {
        inSubset = true;
      } else if (c === 93 /* ] */) {
        inSubset = false;
      } else if (c === GT && !inSubset) {
        return p;
      }
    }
    return INCOMPLETE;
  }

  /** `<?xml …?>` first of all, or any processing instruction. */
  private instruction(lt: number): number {
    const close = this.buffer.indexOf('?>', lt + 2);
    if (close === -1) return INCOMPLETE;
    const target = this.buffer.slice(lt + 2, this.nameEnd(lt + 2));
    if (target.toLowerCase() === 'xml' && !this.atStart) {
      this.fail(lt, 'the XML declaration is only allowed at the start of the document');
    }
    return close + 2;
  }

  private nameEnd(from: number): number {
    const buffer = this.buffer;
    const end = buffer.length;
    if (from >= end || !isNameStart(buffer.charCodeAt(from))) return from >= end ? end : from;
    let p = from + 1;
    while (p < end && isNameChar(buffer.charCodeAt(p))) p++;
    return p;
  }

  /** Decodes UTF-8, normalises whitespace, then expands references (`&amp;`, `&#233;`, `&#x1F600;`). */
  private attributeValue(raw: string, at: number): string {
    const decoded = NON_ASCII.test(raw) ? utf8(raw) : raw;
    const text = decoded.replace(/[\t\n\r]/g, ' ');
    let amp = text.indexOf('&');
    if (amp === -1) return text;
    let out = '';
    let from = 0;
    while (amp !== -1) {
      const semicolon = text.indexOf(';', amp + 1);
      const reference = semicolon === -1 ? '' : text.slice(amp + 1, semicolon);
      // Decoded text no longer lines up with the bytes: point at the value then.
      out += text.slice(from, amp) + this.expand(reference, decoded === raw ? at + amp : at);
      from = semicolon + 1;
      amp = text.indexOf('&', from);
    }
    return out + text.slice(from);
  }

  private expand(reference: string, at: number): string {
    const predefined = PREDEFINED_ENTITIES[reference];
    if (predefined !== undefined && Object.hasOwn(PREDEFINED_ENTITIES, reference)) return predefined;
    const numeric = /^#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}))$/.exec(reference);
    // The text after a bare "&" may be a person's own words (a note): named only when it reads as an entity name.
    if (numeric === null) {
      return this.fail(at, ENTITY_NAME.test(reference) ? `unknown entity &${reference};` : '"&" must start a reference such as &amp; (a bare "&" in a value?)');
    }
    const code = numeric[1] !== undefined ? parseInt(numeric[1], 16) : Number(numeric[2]);
    const allowed = code === 9 || code === 10 || code === 13 || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
    if (!allowed) return this.fail(at, `&${reference}; is not a character XML allows`);
    return String.fromCodePoint(code);
  }

  /** The 1-based line of buffer index `index` (which never moves backwards past `counted`). */
  private lineAt(index: number): number {
    if (index > this.counted) {
      const buffer = this.buffer;
      let newline = buffer.indexOf('\n', this.counted);
      while (newline !== -1 && newline < index) {
        this.lines++;
        this.lineStart = newline + 1;
        newline = buffer.indexOf('\n', newline + 1);
      }
      this.counted = index;
    }
    return this.lines;
  }

  private fail(index: number, reason: string, atEnd = false): never {
    this.failedAt = index;
    const line = this.lineAt(index);
    // In characters: the line's bytes before `index` decoded (those of an earlier buffer counted as bytes).
    const from = Math.max(this.lineStart, 0);
    const before = this.buffer.slice(from, index);
    throw new XmlSyntaxError(reason, line, from - this.lineStart + (NON_ASCII.test(before) ? utf8(before).length : before.length) + 1, atEnd);
  }
}

/** The UTF-16 byte order the first bytes of an XML file show (a byte order mark, or `<` as two bytes), or null for none. */
export function utf16Order(head: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0x3c && head[1] === 0x00)) return 'utf-16le';
  if ((head[0] === 0xfe && head[1] === 0xff) || (head[0] === 0x00 && head[1] === 0x3c)) return 'utf-16be';
  return null;
}
