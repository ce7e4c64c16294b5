internal import AutofillCore
internal import AutofillABI
internal import AutofillSystem
internal import Dispatch

/// The plugin's host-service calls, served on the reader thread (UI on another).
extension RunningHelper {
    /// Answers one host-service call. UI waits for the user, so it is answered from another thread.
    func serve(_ call: HostCall, id: UInt64) {
        let reply: HostReply
        switch call {
        case .setting(let key):
            reply = .setting(handler.setting(forKey: key))
        case .storeState:
            do {
                reply = .storeState(.success(try handler.identityStore.state()))
            } catch {
                reply = .storeState(.failure(.init(code: error.code)))
            }
        case .storeSave(let identities):
            reply = Self.storeReply { () throws(IdentityStoreError) in try handler.identityStore.save(identities) }
        case .storeRemove(let identities):
            reply = Self.storeReply { () throws(IdentityStoreError) in try handler.identityStore.remove(identities) }
        case .storeReplace(let identities):
            reply = Self.storeReply { () throws(IdentityStoreError) in try handler.identityStore.replace(with: identities) }
        case .storeRemoveAll:
            reply = Self.storeReply { () throws(IdentityStoreError) in try handler.identityStore.removeAll() }
        case .complete(let request, let answer):
            let status = handler.complete(request: request, with: answer)
            untrack(request)
            reply = .status(status.rawValue)
        case .present(let request, let ui):
            guard isRunning else {
                // Its last frames, read after it ended: nobody is left to answer the user.
                reply = .userInterface(.failure(.unavailable("the provider's helper ended")))
                break
            }
            let handler = self.handler, channel = self.channel
            userInterfaceQueue.async {
                let answer: Result<UserInterfaceAnswer, UserInterfaceError>
                do throws(UserInterfaceError) {
                    answer = .success(try handler.present(ui, forRequest: request))
                } catch {
                    answer = .failure(error)
                }
                _ = try? channel.send(.reply(id, .userInterface(answer)))
            }
            return
        case .addFile(let request, let folder, let name, let contents):
            // Writing and committing take a while: off the thread that reads the helper's frames.
            let handler = self.handler, channel = self.channel
            userInterfaceQueue.async {
                let (status, reason) = handler.addFile(request: request, folder: folder, name: name, contents: contents)
                _ = try? channel.send(.reply(id, .added(status.rawValue, reason)))
            }
            return
        case .openFile(let path):
            let (status, reason, descriptor) = handler.openFile(path: path)
            guard status == .ok else {
                reply = .added(status.rawValue, reason)
                break
            }
            defer { Descriptors.closeQuietly(descriptor) }
            // It reads the file as it is now: a replace of that file no longer makes its view stale.
            if let file = singleFile(named: path) { state.withLock { $0.files.follow(file) } }
            do {
                try channel.send(.reply(id, .added(ABIStatus.ok.rawValue, "")), attaching: descriptor)
            } catch {
                stop(.violation(error.message))
            }
            return
        case .replaceFile(let request, let path, let expected, let length):
            let refusal = state.withLock { $0.replacing.start(request: request, path: path, expectedSHA256: expected, length: length) }
            reply = .added(refusal == nil ? ABIStatus.ok.rawValue : ABIStatus.refused.rawValue, refusal ?? "")
        case .replaceFileChunk(let request, let piece):
            switch state.withLock({ $0.replacing.take(piece, of: request) }) {
            case .more:
                reply = .added(ABIStatus.ok.rawValue, "")
            case .refused(let refusal):
                reply = .added(ABIStatus.refused.rawValue, refusal)
            case .whole(let replace):
                // Hashing and writing take a while: off the thread that reads the helper's frames.
                let handler = self.handler, channel = self.channel
                userInterfaceQueue.async {
                    let (status, reason) = replace.contents.withUnsafeBytes { contents in
                        handler.replaceFile(request: replace.request, path: replace.path, contents: contents, expectedSHA256: replace.expectedSHA256)
                    }
                    self.retireIfItsViewIsStale(after: replace.request, path: replace.path, status: status)
                    _ = try? channel.send(.reply(id, .added(status.rawValue, reason)))
                }
                return
            }
        }
        do {
            try channel.send(.reply(id, reply))
        } catch {
            stop(.violation(error.message))
        }
    }

    private static func storeReply(_ write: () throws(IdentityStoreError) -> Void) -> HostReply {
        do {
            try write()
            return .store(nil)
        } catch {
            return .store(error.code)
        }
    }
}

/// A `replace_file` from a helper (``ReplaceAssembly``), and the end of a helper whose view of the
/// file it replaces is stale.
extension RunningHelper {
    /// Ends the helper once `request` completes when its view of a replace-file file can no longer be
    /// read afresh: the file changed on disk since it was read (a file bound into the sandbox by itself
    /// stays the version it was at the launch, so only a new helper reads the new one: reload, then
    /// apply), or it was replaced under Landlock alone (whose rule holds the old file, not the new one).
    /// The next request starts it again; what it held in memory goes with it.
    /// The resolved path of the declared single file `path` names (as written or resolved), or nil.
    func singleFile(named path: String) -> String? {
        let standardized = LexicalPath.standardized(path)
        return options.singleFiles.first { [$0.written, $0.path].contains(standardized) }?.path
    }

    func retireIfItsViewIsStale(after request: UInt64, path: String, status: ABIStatus) {
        let file = singleFile(named: path)
        // A file it opens through the host (`open_file`) it reads as it is now: never stale.
        if let file, !state.withLock({ $0.files.watches(file) }) { return }
        if status == .ok && options.namespaces {
            // The host replaced it with what the provider handed over: the provider knows that version,
            // so the new inode does not make its view stale (``GrantedFiles``).
            if let file { state.withLock { $0.files.adopt(file) } }
        }
        guard options.sandbox != nil, status == .changedOnDisk || (status == .ok && !options.namespaces) else { return }
        logger.debug("\(manifest.identifier)'s view of the file it replaces is stale: its helper ends after this request")
        state.withLock { $0.retireAfter = request }
    }
}
