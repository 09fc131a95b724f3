internal import CDBus
internal import SystemCalls
#if canImport(Glibc)
    import Glibc
#endif

/// Routing one incoming method call to a table row and sending exactly one reply.
///
/// The order of checks follows dbus-broker's driver: object, interface, member, then the
/// signature, all before any handler runs, so handlers never see malformed input.
extension Connection {
    func dispatchMethodCall(_ message: Message) {
        if outbox.refuses(message) { return }
        routedUndoneReply = nil
        let result: Result<[DBusValue], MethodError>
        do {
            result = .success(try route(message))
        } catch {
            result = .failure(error)
        }
        reply(to: message, with: result)
    }

    /// Sends the reply (unless the caller asked for none). Outputs that cannot be written are a
    /// program bug in a handler: they become `Failed` on the wire and a line on stderr.
    func reply(to message: Message, with result: Result<[DBusValue], MethodError>) {
        // A handler that asked to answer later (`Connection.answerLater`) is answered through that.
        let thrown: MethodError? = if case .failure(let error) = result { error } else { nil }
        if takeLaterReply(for: message, thrown: thrown) { return }
        guard message.expectsReply else { return }
        switch result {
        case .success(let values):
            do {
                // Kept per caller too: a caller's run of calls gets the same few replies, and setting
                // the destination on every copy cost libdbus more than the rest of the reply.
                let caller = dbus_message_get_sender(message.raw)
                let reply = try replyTemplates.message(keyedBy: {
                    $0.writeMethodReturn(body: values, destination: caller)
                }) {
                    () throws(MethodError) in
                    let template = try templates.message(keyedBy: {
                        $0.writeMethodReturn(body: values, destination: nil)
                    }) {
                        () throws(MethodError) in
                        let template = Message.unaddressedMethodReturn()
                        try template.append(values)
                        return template
                    }
                    template.address(to: caller)
                    return template
                }
                reply.answer(message)
                if outbox.isGroupOpen && !answersUndoneCallsWithErrors {
                    reply.undone = (message.member, routedUndoneReply)
                }
                submit(reply, as: .reply)
            } catch {
                writeDiagnostic(
                    "DBusKit: reply to \(message.interface ?? "").\(message.member) is malformed: \(error.message)"
                )
                submit(
                    message.errorReply(MethodError(.failed, "Internal error: malformed reply")),
                    as: .error)
            }
        case .failure(let error):
            submit(message.errorReply(error), as: .error)
        }
    }

    private func route(_ message: Message) throws(MethodError) -> [DBusValue] {
        guard let rawPath = dbus_message_get_path(message.raw) else {
            throw MethodError(.unknownObject, "Method call without a path")
        }
        let path = ObjectPath(unchecked: recentPath.string(rawPath))
        let interface = dbus_message_get_interface(message.raw).map { recentInterface.string($0) }
        let member = message.member
        guard let tables = exports.tables(for: path) else {
            if interface == InterfaceName.introspectable.rawValue || interface == nil,
                member == "Introspect",
                !exports.childNames(of: path).isEmpty
            {
                return try introspect(message, path: path, tables: [])
            }
            throw MethodError(.unknownObject, "No such object path '\(path.rawValue)'")
        }
        // The object's own tables come first; Properties and Introspectable are generated only when
        // none of them answers, so an ordinary call allocates no tables.
        let table: InterfaceTable
        if let interface {
            guard
                let found = tables.first(where: { $0.name == interface })
                    ?? standardTables(path: path, tables: tables).first(where: { $0.name == interface })
            else {
                throw MethodError(
                    .unknownInterface,
                    "No such interface '\(interface)' on object at path \(path.rawValue)")
            }
            table = found
        } else {
            guard
                let found = tables.first(where: { $0.method(named: member) != nil })
                    ?? standardTables(path: path, tables: tables).first(where: {
                        $0.method(named: member) != nil
                    })
            else {
                throw unknownMethod(message)
            }
            table = found
        }
        guard let method = table.method(named: member) else { throw unknownMethod(message) }
        let signature = message.signature
        guard signature == method.inputSignature else {
            throw MethodError(
                .invalidArgs,
                "Method \(member) expects signature \"\(method.inputSignature)\" but got \"\(signature)\""
            )
        }
        let call = MethodCall(
            sender: message.sender, path: path, interface: interface, member: member,
            arguments: try message.arguments())
        routedUndoneReply = method.undoneReply
        let outputs = try method.handler(call)
        guard matchesSignatures(outputs, method.outputSignature) else {
            let produced = DBusKit.signature(of: outputs)
            writeDiagnostic(
                "DBusKit: handler of \(table.name).\(member) returned \"\(produced)\" but declares \"\(method.outputSignature)\""
            )
            throw MethodError(.failed, "Internal error: \(member) produced a reply of the wrong type")
        }
        return outputs
    }

    private func unknownMethod(_ message: Message) -> MethodError {
        MethodError(
            .unknownMethod,
            "Method \"\(message.member)\" with signature \"\(message.signature)\" on interface "
                + "\"\(message.interface ?? "(null)")\" doesn't exist")
    }

    /// Properties and Introspectable for an object, generated from its own tables.
    /// (Peer is answered by libdbus itself inside `dbus_connection_dispatch`.)
    private func standardTables(path: ObjectPath, tables: [InterfaceTable]) -> [InterfaceTable] {
        [
            StandardInterfaces.properties(PropertiesProvider(tables: tables)),
            InterfaceTable(
                InterfaceName.introspectable.rawValue,
                methods: [
                    Method("Introspect", outputs: [Argument("xml_data", "s")]) {
                        [unowned self] _ throws(MethodError) in
                        [.string(self.introspectionDocument(path: path, tables: tables))]
                    }
                ])
        ]
    }

    private func introspect(_ message: Message, path: ObjectPath, tables: [InterfaceTable])
        throws(MethodError) -> [DBusValue]
    {
        guard message.signature.isEmpty else {
            throw MethodError(
                .invalidArgs, "Method Introspect expects signature \"\" but got \"\(message.signature)\""
            )
        }
        return [.string(introspectionDocument(path: path, tables: tables))]
    }

    /// The full Introspect answer for `path` as this connection would send it: the object's own
    /// tables plus the standard interfaces (only when something is exported there) and a
    /// `<node name=…/>` per exported child.
    public func introspectionDocument(path: ObjectPath, tables: [InterfaceTable]) -> String {
        InterfaceTable.introspectionDocument(
            tables: tables, children: exports.childNames(of: path),
            includeStandardInterfaces: exports.tables(for: path) != nil)
    }
}

/// The last string read from a message field, kept as a `String`: a run of calls to one object
/// then reads its path and interface without making new Strings (for these, longer than 15
/// bytes, each new one is an allocation and a UTF-8 check). Equal bytes are an equal String.
struct RecentString {
    private var last = ""

    mutating func string(_ pointer: UnsafePointer<CChar>) -> String {
        if last.withCString({ strcmp($0, pointer) == 0 }) { return last }
        last = String(cString: pointer)
        return last
    }
}
