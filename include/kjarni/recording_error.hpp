#pragma once
/// The error of recorded launch sequences (kjarni/recording.hpp), apart so that every layer that
/// refuses work while a queue records can throw it. \file

#include <string>
#include <utility>

#include "kjarni/error.hpp"

namespace kjarni {

/// Work that a recording cannot take, or a recording used where it does not belong: names the
/// culprit (the call, the queue, the changed argument) and says why.
class RecordingError : public Error {
public:
    RecordingError(std::string culprit, const std::string& reason)
        : Error("recording: '" + culprit + "': " + reason), culprit_(std::move(culprit)) {}
    /// The call, argument or object at fault ("Buffer::get", "queue", "argument 2 of launch 0").
    const std::string& culprit() const noexcept { return culprit_; }

private:
    std::string culprit_;
};

}  // namespace kjarni
