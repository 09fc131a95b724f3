/// How a press on the track becomes a drag, as the article specifies the two interactions.
public enum GrabMode: String, CaseIterable, Sendable {
    /// A press anywhere on the track previews the nearest tick at once (jump to position); the pointer's
    /// x is the position while dragging.
    case track
    /// Only a press on the thumb drags, keeping the grab offset: the thumb's centre at the press plus the
    /// total horizontal translation. A press elsewhere does nothing.
    case thumb
}

/// What the panel asks the daemon for, in the daemon's track coordinates (already rounded).
public enum DragAction: Equatable, Sendable {
    case preview(Double)
    case commit(Double)
    case cancel
}

/// The pointer rules of one track, without GTK: the gesture's callbacks go in (widget coordinates, GTK's
/// drag offsets), the daemon's calls come out. Release commits from the release position, never from
/// the last preview; a cancelled drag (Escape, lost grab, focus lost, hidden) commits nothing, even
/// though GTK still reports its end afterwards.
public struct DragRules: Equatable, Sendable {
    enum Phase: Equatable, Sendable {
        case idle
        /// Dragging: the daemon's position is `origin` plus GTK's total offset.
        case dragging(origin: Double)
        /// A press that does not drag (thumb mode, off the thumb), or a drag that was cancelled: its
        /// remaining updates and its end are ignored.
        case ignoring
    }

    public let mode: GrabMode
    private(set) var phase: Phase = .idle

    public init(mode: GrabMode) { self.mode = mode }

    public var isDragging: Bool {
        if case .dragging = phase { true } else { false }
    }

    /// The press. `widgetX` is in the track widget's coordinates; `thumbX` the shown thumb's centre there;
    /// `radius` the thumb's (the daemon's TrackInset). Positions are mirrored for a right-to-left track
    /// by `geometry`.
    public mutating func begin(widgetX: Double, thumbX: Double, radius: Double, geometry: Geometry)
        -> DragAction?
    {
        switch mode {
        case .track:
            phase = .dragging(origin: widgetX)
            return .preview(geometry.daemonX(widgetX))
        case .thumb:
            guard abs(widgetX - thumbX) <= radius else {
                phase = .ignoring
                return nil
            }
            phase = .dragging(origin: thumbX)
            return .preview(geometry.daemonX(thumbX))
        }
    }

    /// A motion with the button held: GTK's offset from the press.
    public func update(offset: Double, geometry: Geometry) -> DragAction? {
        guard case .dragging(let origin) = phase else { return nil }
        return .preview(geometry.daemonX(origin + offset))
    }

    /// The release: commits from where the pointer is let go.
    public mutating func end(offset: Double, geometry: Geometry) -> DragAction? {
        defer { phase = .idle }
        guard case .dragging(let origin) = phase else { return nil }
        return .commit(geometry.daemonX(origin + offset))
    }

    /// Escape, a lost grab, the window losing focus or being hidden. GTK still sends the drag's end
    /// afterwards (cancel comes first), which then commits nothing.
    public mutating func cancel() -> DragAction? {
        guard case .dragging = phase else { return nil }
        phase = .ignoring
        return .cancel
    }

    /// The daemon refused the drag's preview (another client holds one): the gesture goes on in GTK,
    /// but its updates preview nothing and its release commits nothing, so that letting go after the
    /// other client has finished does not commit where the refused press happened to be.
    public mutating func abandon() {
        guard case .dragging = phase else { return }
        phase = .ignoring
    }

    /// The track's width and direction, for the mirror of a right-to-left track.
    public struct Geometry: Equatable, Sendable {
        public var trackWidth: Double
        public var rightToLeft: Bool

        public init(trackWidth: Double, rightToLeft: Bool) {
            self.trackWidth = trackWidth
            self.rightToLeft = rightToLeft
        }

        public func daemonX(_ widgetX: Double) -> Double {
            TrackPosition.daemonX(widgetX: widgetX, trackWidth: trackWidth, rightToLeft: rightToLeft)
        }
    }
}
