// The export.xml tokenizer: what it hands over (names, decoded attribute
// values, lines), fed whole or cut at every byte; what it refuses, with line
// and column; and, on random documents, the same events as saxes — the
// general-purpose parser it replaced — for every way of cutting the bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { XmlSyntaxError, XmlTokenizer } from '../src/import/xml-tokenizer.js';

type Event = string;

function tokenize(pieces: readonly Uint8Array[], lenient = false): Event[] {
  const events: Event[] = [];
  const tokenizer = new XmlTokenizer(
    {
      doctype: (text) => events.push(`doctype ${text}`),
      open: (name, attributes, line) => events.push(`open ${name} ${JSON.stringify(Object.entries(attributes))} @${line}`),
      close: (name) => events.push(`close ${name}`),
      skipped: (name, _tag, line) => events.push(`skipped ${name} @${line}`),
    },
    { lenient },
  );
  for (const piece of pieces) tokenizer.write(piece);
  tokenizer.close();
  return events;
}

/** The bytes of `xml` cut before each index of `cuts`. */
function cut(xml: string, cuts: readonly number[]): Uint8Array[] {
  const bytes = Buffer.from(xml);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(from, point));
    from = point;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}

function refusal(xml: string): XmlSyntaxError {
  try {
    tokenize([Buffer.from(xml)]);
  } catch (error) {
    if (error instanceof XmlSyntaxError) return error;
    throw error;
  }
  assert.fail(`accepted: ${xml}`);
}

test('tokens: names, decoded values, lines, empty elements, the DOCTYPE; the same whether fed whole or byte by byte', () => {
  const xml = [
    '\uFEFF<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE HealthData [',
    '<!-- HealthKit Export Version: 14 -->',
    '<!ATTLIST HealthData locale CDATA ">]" >',
    ']>',
    '<HealthData locale="en_US">',
    ' <Record sourceName="Sam’s Watch" value=\'1 &lt; 2 &amp;&#x20;&#233;&#128512;\' note="a\tb\nc"/>',
    ' <!-- a comment with <tags> -->',
    ' <Record sourceName="Sam’s Watch" device="&lt;&lt;HKDevice&gt;"><MetadataEntry key="ü" value=""/></Record>',
    ' <Record sourceName="Sam’s Watch" device="&lt;&lt;HKDevice&gt;"><![CDATA[<not a tag>]]></Record>',
    '</HealthData>',
    '',
  ].join('\n');
  const expected = [
    'doctype HealthData [\n<!-- HealthKit Export Version: 14 -->\n<!ATTLIST HealthData locale CDATA ">]" >\n]',
    'open HealthData [["locale","en_US"]] @6',
    'open Record [["sourceName","Sam’s Watch"],["value","1 < 2 & é😀"],["note","a b c"]] @7',
    'close Record',
    'open Record [["sourceName","Sam’s Watch"],["device","<<HKDevice>"]] @10',
    'open MetadataEntry [["key","ü"],["value",""]] @10',
    'close MetadataEntry',
    'close Record',
    'open Record [["sourceName","Sam’s Watch"],["device","<<HKDevice>"]] @11',
    'close Record',
    'close HealthData',
  ];
  assert.deepEqual(tokenize([Buffer.from(xml)]), expected);
  const bytes = Buffer.from(xml);
  assert.deepEqual(tokenize([...bytes].map((byte) => Uint8Array.of(byte))), expected);
});

test('refusals name the line and the column (in characters)', () => {
  const cases: Array<[string, number, number, RegExp]> = [
    ['<a>\n <b></c>\n</a>', 2, 5, /closing tag <\/c> does not match <b>/],
    ['<a>\n <b x="1" x="2"/>\n</a>', 2, 11, /attribute x appears twice in <b>/],
    ['<a>\n <b x="1"y="2"/>\n</a>', 2, 10, /a space is needed/],
    ['<a>\n <b x/>\n</a>', 2, 6, /attribute x of <b> has no value/],
    ['<a>\n <b x=1/>\n</a>', 2, 7, /is not quoted/],
    ['<a>\n <b x="<"/>\n</a>', 2, 8, /"<" is not allowed inside a tag/],
    ['<a>\n <b x="&nope;"/>\n</a>', 2, 8, /unknown entity &nope;/],
    ['<a>\n <b x="A & B"/>\n</a>', 2, 10, /"&" must start a reference/],
    // A person's words after a bare "&" are not quoted back (they may be a note about their health).
    ['<a>\n <b x="meds & private words; later"/>\n</a>', 2, 13, /^(?!.*private)[^]*"&" must start a reference such as &amp; \(a bare "&" in a value\?\)/],
    ['<a>\n <b x="&#1;"/>\n</a>', 2, 8, /&#1; is not a character XML allows/],
    ['<a>\n <b x="é\u0001"/>\n</a>', 2, 9, /U\+0001 is not allowed/],
    ['<a/>\n<b/>', 2, 1, /a second root element <b>/],
    ['<a/>\ntext', 2, 1, /text after the root element/],
    ['text<a/>', 1, 1, /text before the root element/],
    ['<a>\n <b>\n</a>', 3, 1, /closing tag <\/a> does not match <b>/],
    ['<a>\n <b/>\n', 3, 1, /ends before <a> is closed/],
    ['<a>\n <b x="1', 2, 2, /ends inside a tag/],
    ['', 1, 1, /no root element/],
    ['<a>\n <?xml version="1.0"?>\n</a>', 2, 2, /XML declaration is only allowed at the start/],
    ['<a>\n <!DOCTYPE a>\n</a>', 2, 2, /DOCTYPE is only allowed once, before the root/],
    ['<a>\n <!ELEMENT a>\n</a>', 2, 2, /unexpected "<!" markup/],
    ['<a>\n <1b/>\n</a>', 2, 3, /"1" cannot start a tag name/],
  ];
  for (const [xml, line, column, reason] of cases) {
    const error = refusal(xml);
    assert.match(error.reason, reason, xml);
    assert.deepEqual([error.line, error.column], [line, column], `${xml}: ${error.message}`);
  }
});

test('an attribute given twice is caught even when its name shares a slot with another name', () => {
  // Names of one length whose first, middle and last characters hash alike share a slot; fill many, then repeat one.
  const names = Array.from({ length: 2000 }, (_, i) => `n${i.toString(36).padStart(3, '0')}x`);
  const attributes = names.map((name) => `${name}="1"`).join(' ');
  const error = refusal(`<a ${attributes} ${names[0]}="2"/>`);
  assert.match(error.reason, new RegExp(`attribute ${names[0]} appears twice`));
  // Without the repeat, every one of them arrives once.
  const [open] = tokenize([Buffer.from(`<a ${attributes}/>`)]);
  assert.equal(JSON.parse(open.slice('open a '.length, open.lastIndexOf(' @'))).length, 2000);
});

/** saxes' events for the same document, in the same words. */
function saxesEvents(xml: string): Event[] {
  const events: Event[] = [];
  const parser = new SaxesParser({ position: true });
  parser.on('doctype', (text) => events.push(`doctype ${text.trim()}`));
  parser.on('opentag', (tag) => events.push(`open ${tag.name} ${JSON.stringify(Object.entries(tag.attributes))} @${parser.line}`));
  parser.on('closetag', (tag) => events.push(`close ${tag.name}`));
  parser.on('error', (error) => {
    throw error;
  });
  parser.write(xml).close();
  return events;
}

test('random documents: the same elements, attributes and lines as saxes, however the bytes are cut', () => {
  const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,8}$/);
  const valueText = fc.array(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 6 }).map((s) => s.replace(/[<&"\u0000-\u001f\ud800-\udfff\ufffe\uffff]/g, '')),
      fc.constantFrom('&lt;', '&gt;', '&amp;', '&quot;', '&apos;', '&#233;', '&#x1F600;', '&#10;', '\t', '’', 'é', '>'),
    ),
    { maxLength: 5 },
  );
  const attributes = fc.uniqueArray(fc.tuple(name, valueText.map((parts) => parts.join(''))), { selector: ([n]) => n, maxLength: 5 });
  interface Node {
    name: string;
    attributes: Array<[string, string]>;
    children: Node[];
  }
  const node: fc.Memo<Node> = fc.memo((depth) =>
    fc.record({ name, attributes, children: depth > 1 ? fc.array(node(depth - 1), { maxLength: 3 }) : fc.constant([]) }),
  );
  const render = (n: Node, indent: string): string => {
    const open = `${indent}<${n.name}${n.attributes.map(([k, v]) => ` ${k}="${v}"`).join('')}`;
    if (n.children.length === 0) return `${open}/>\n`;
    return `${open}>\n${n.children.map((c) => render(c, indent + ' ')).join('')}${indent}</${n.name}>\n`;
  };
  fc.assert(
    fc.property(node(4), fc.array(fc.nat(), { maxLength: 6 }), (root, cuts) => {
      const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE x [\n<!-- v -->\n]>\n${render(root, '')}`;
      // saxes reports the line where a start tag ends; ours is where it begins: render keeps each tag on one line.
      assert.deepEqual(tokenize(cut(xml, cuts)), saxesEvents(xml));
      // Lenient reading of a well-formed document is strict reading.
      assert.deepEqual(tokenize(cut(xml, cuts), true), saxesEvents(xml));
    }),
    { numRuns: 300 },
  );
  // A malformed first child of the root (an attribute name with a space, as iOS 8 wrote them): skipped whole, the rest the same.
  const size = (n: Node): number => 1 + n.children.reduce((sum, c) => sum + size(c), 0);
  fc.assert(
    fc.property(node(4).filter((root) => root.children.length > 0), fc.array(fc.nat(), { maxLength: 6 }), (root, cuts) => {
      const head = `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE x [\n<!-- v -->\n]>\n`;
      const xml = head + render(root, '');
      const firstChild = root.children[0];
      const broken = head + render({ ...root, children: [{ ...firstChild, attributes: [...firstChild.attributes, ['Health Mate', 'x']] }, ...root.children.slice(1)] }, '');
      const strict = saxesEvents(xml);
      const childLine = /@(\d+)$/.exec(strict[2])![1];
      const expected = [...strict.slice(0, 2), `skipped ${firstChild.name} @${childLine}`, ...strict.slice(2 + 2 * size(firstChild))];
      assert.deepEqual(tokenize(cut(broken, cuts), true), expected);
      assert.throws(() => tokenize(cut(broken, cuts)), XmlSyntaxError);
    }),
    { numRuns: 300 },
  );
});

test('lenient reading skips a malformed element whole even when a nested one of its name quotes a ">"', () => {
  // Found by the property above: the nested <_ A=">"/> is empty, though its first ">" is quoted.
  const xml = '<A>\n <_ Health Mate="x">\n  <a>\n   <_ A=">"/>\n  </a>\n </_>\n <b/>\n</A>\n';
  const expected = ['open A [] @1', 'skipped _ @2', 'open b [] @7', 'close b', 'close A'];
  for (let at = 0; at <= xml.length; at++) assert.deepEqual(tokenize(cut(xml, [at]), true), expected, `cut at ${at}`);
});

test('lenient reading skips a start tag holding a "<" (in a value, or a tag inside it) without handing it on, and reads on from there', () => {
  // In a value: the element is skipped whole (its tag ends at the ">" outside quotes), the next one read.
  const inValue = '<A>\n <R a="1" s="x<y"/>\n <R a="2"/>\n <R a="3" s="p<q">\n  <M k="v"/>\n </R>\n <R a="4"/>\n</A>\n';
  const expectedInValue = ['open A [] @1', 'skipped R @2', 'open R [["a","2"]] @3', 'close R', 'skipped R @4', 'open R [["a","4"]] @7', 'close R', 'close A'];
  for (let at = 0; at <= inValue.length; at++) assert.deepEqual(tokenize(cut(inValue, [at]), true), expectedInValue, `cut at ${at}`);
  // A tag inside the tag: the broken tag is skipped up to it, and reading goes on there.
  const tagInside = '<A>\n <R a="1" <b/> c="2"/>\n <R a="3"/>\n</A>\n';
  const expectedTagInside = ['open A [] @1', 'skipped R @2', 'open b [] @2', 'close b', 'open R [["a","3"]] @3', 'close R', 'close A'];
  for (let at = 0; at <= tagInside.length; at++) assert.deepEqual(tokenize(cut(tagInside, [at]), true), expectedTagInside, `cut at ${at}`);
  // A quote left open (a metadata key with an apostrophe): the broken tag ends with its line, the next line is read.
  const openQuote = `<A>\n <R a="1" Bob's Key="2"/>\n <R a="3"/>\n</A>\n`;
  const expectedOpenQuote = ['open A [] @1', 'skipped R @2', 'open R [["a","3"]] @3', 'close R', 'close A'];
  for (let at = 0; at <= openQuote.length; at++) assert.deepEqual(tokenize(cut(openQuote, [at]), true), expectedOpenQuote, `cut at ${at}`);
  // Read strictly, the same documents stop at the "<".
  assert.match(refusal(inValue).message, /line 2.*"<" is not allowed inside a tag or an attribute value/);
});
