internal import CLibXML2

/// What an ``XMLEventParser`` reports, in document order. Names are local names (no prefix).
protocol XMLEventHandler: AnyObject {
    func startElement(_ name: String, attributes: [String: String]) throws(KDBXError)
    /// A run of an element's text (character data or CDATA), UTF-8; one text may come in many runs.
    func characters(_ text: UnsafeBufferPointer<UInt8>) throws(KDBXError)
    func endElement(_ name: String) throws(KDBXError)
}

/// libxml2's push parser, fed piece by piece, reporting elements and text to a handler.
///
/// Why libxml2 directly and not Foundation's XMLParser: on Linux, XMLParser traps on input
/// libxml2 itself reports as an error (an element name that is not UTF-8, a processing instruction
/// without data: `strlen(NULL)`), so a hostile database or key file killed the provider; and it
/// wants the whole document at once or an InputStream it copies. Here every malformed input ends
/// in an error, nothing is held beyond the piece being parsed (an attachment is streamed past), no
/// entity is expanded or fetched (no `XML_PARSE_NOENT`, `XML_PARSE_NONET`), libxml2's own limits
/// stay on (depth, name and text sizes; no `XML_PARSE_HUGE`), and libxml2 prints nothing (its
/// messages may quote the decrypted XML).
final class XMLEventParser {
    private unowned let handler: any XMLEventHandler
    /// What is parsed, for messages ("the database's XML").
    private let what: String
    private var context: xmlParserCtxtPtr?
    /// The handler's error, which stopped the parser.
    private var failure: KDBXError?

    init(handler: any XMLEventHandler, what: String) {
        self.handler = handler
        self.what = what
    }

    deinit {
        if let context { xmlFreeParserCtxt(context) }
    }

    /// Parses the next piece of the document.
    func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        var offset = 0
        while offset < bytes.count {
            // xmlParseChunk takes an Int32 size.
            let size = min(bytes.count - offset, 1 << 20)
            let context = try parser()
            let status = base.advanced(by: offset).withMemoryRebound(to: CChar.self, capacity: size) { xmlParseChunk(context, $0, Int32(size), 0) }
            try check(status)
            offset += size
        }
    }

    /// Ends the document: an unclosed element or an empty document is an error.
    func finish() throws(KDBXError) {
        try check(xmlParseChunk(try parser(), nil, 0, 1))
    }

    /// Parses a whole document held in `bytes`.
    func parse(_ bytes: [UInt8]) throws(KDBXError) {
        var failure: KDBXError?
        bytes.withUnsafeBufferPointer { buffer in
            do throws(KDBXError) { try feed(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
        try finish()
    }

    private func check(_ status: Int32) throws(KDBXError) {
        if let failure { throw failure }
        guard status == 0, let context, context.pointee.wellFormed != 0 else {
            let line = context.map { xmlSAX2GetLineNumber(UnsafeMutableRawPointer($0)) } ?? 0
            throw KDBXError(.corrupt, "\(what) is malformed XML (line \(line), libxml2 error \(status))")
        }
    }

    /// libxml2 initialized once per process before any parser is made (its first initialization is not
    /// thread-safe in 2.9; a Swift static is initialized once, atomically).
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// The parser context, made on first use.
    private func parser() throws(KDBXError) -> xmlParserCtxtPtr {
        if let context { return context }
        _ = Self.initialized
        var sax = xmlSAXHandler()
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        sax.startElementNs = { user, localName, _, _, _, _, count, _, attributes in
            guard let user, let localName else { return }
            let parser = Unmanaged<XMLEventParser>.fromOpaque(user).takeUnretainedValue()
            var values: [String: String] = [:]
            if let attributes {
                for index in 0..<Int(max(0, count)) {
                    guard let name = attributes[5 * index], let start = attributes[5 * index + 3], let end = attributes[5 * index + 4] else { continue }
                    let value = UnsafeBufferPointer(start: start, count: max(0, end - start))
                    values[String(cString: name)] = String(decoding: value, as: UTF8.self)
                }
            }
            parser.run { handler throws(KDBXError) in try handler.startElement(String(cString: localName), attributes: values) }
        }
        sax.endElementNs = { user, localName, _, _ in
            guard let user, let localName else { return }
            let parser = Unmanaged<XMLEventParser>.fromOpaque(user).takeUnretainedValue()
            parser.run { handler throws(KDBXError) in try handler.endElement(String(cString: localName)) }
        }
        let characters: charactersSAXFunc = { user, text, length in
            guard let user, let text, length > 0 else { return }
            let parser = Unmanaged<XMLEventParser>.fromOpaque(user).takeUnretainedValue()
            parser.run { handler throws(KDBXError) in try handler.characters(UnsafeBufferPointer(start: text, count: Int(length))) }
        }
        sax.characters = characters
        sax.ignorableWhitespace = characters
        sax.cdataBlock = characters
        sax.serror = { _, _ in }  // errors end the parse; libxml2 must not print (its messages quote the input)
        // libxml2 reports some errors (an input encoding it cannot convert, quoting the bytes) outside any
        // parser context, to its generic handler, which prints; silenced on this thread (its handlers are
        // per thread; a variadic C handler cannot be written in Swift, so the shim installs it).
        clibxml2_silence_generic_errors()
        xmlSetStructuredErrorFunc(nil, nil)
        guard let made = xmlCreatePushParserCtxt(&sax, Unmanaged.passUnretained(self).toOpaque(), nil, 0, nil) else {
            throw KDBXError(.unsupported, "libxml2 could not make a parser (out of memory?)")
        }
        xmlCtxtUseOptions(made, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue))
        context = made
        return made
    }

    /// Calls the handler unless an earlier call failed; a failure stops the parser.
    private func run(_ body: (any XMLEventHandler) throws(KDBXError) -> Void) {
        guard failure == nil else { return }
        do {
            try body(handler)
        } catch {
            failure = error
            xmlStopParser(context)
        }
    }
}
