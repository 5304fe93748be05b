/// What the thread that runs an engine does after one of its turns (``EngineOwner/turn()``).
///
/// The engine's own thread waits in place (``EngineOwner/run()``); a ``SegmentsEngineGroup``
/// thread turns the answer into that client's schedule and runs other clients meanwhile.
enum EngineTurn {
    /// More is waiting (the ring held a full batch): run the next turn at once.
    case again
    /// Events are flowing: look at the ring again after ``EngineOwner/lingerNanoseconds`` of real
    /// time, without asking producers to signal (control messages still end the wait at once).
    case linger
    /// Nothing to do until `until` on the engine's clock (never, if `nil`), new input, or a
    /// registration: producers must wake the engine (``EngineChannels/sleep(until:clock:)``).
    case sleep(until: SegmentsInstant?)
    /// The stop protocol is over and the inbox is closed: no further turn runs.
    case finished
}
