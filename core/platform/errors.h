// Typed exceptions of the core. Every error carries enough context for one clear line
// in the CLI and one message in the GUI.
#pragma once

#include <stdexcept>
#include <string>

namespace wb {

// Base of every error the core throws on purpose.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Bad input data: names the file, the 1-based line and column (0 when not applicable)
// and the offending text.
class DataError : public Error {
public:
    DataError(std::string file, long line, long column, std::string text, const std::string& reason);
    // An error about a whole file (missing, empty, a directory, ...).
    DataError(std::string file, const std::string& reason);

    const std::string& file() const { return file_; }
    long line() const { return line_; }
    long column() const { return column_; }
    const std::string& text() const { return text_; }
    const std::string& reason() const { return reason_; }

private:
    std::string file_;
    long line_ = 0;
    long column_ = 0;
    std::string text_;
    std::string reason_;
};

// A setting, or a combination of settings, that cannot be used.
class ConfigError : public Error {
public:
    using Error::Error;
};

// A device (CUDA, cuBLAS) failure; `code` is the library's error name, e.g. cudaErrorMemoryAllocation.
class DeviceError : public Error {
public:
    DeviceError(std::string code, const std::string& message)
        : Error(code.empty() ? message : message + " (" + code + ")"), code_(std::move(code)) {}
    const std::string& code() const { return code_; }

private:
    std::string code_;
};

// A framework backend's interpreter or script failed: not found, a module missing, a traceback.
class FrameworkError : public Error {
public:
    using Error::Error;
};

// A program that could not be started, or a child that could not be written to or read from
// (core/platform/child_process.h). The message names the program; a caller that knows what the
// program is for (a framework's training loop) says so in an error of its own.
class ProcessError : public Error {
public:
    // A message that does not name the program yet gets it appended: no such error is anonymous.
    ProcessError(std::string program, const std::string& message)
        : Error(program.empty() || message.find(program) != std::string::npos ? message
                                                                              : message + " (" + program + ")"),
          program_(std::move(program)) {}
    const std::string& program() const { return program_; }

private:
    std::string program_;
};

// A file that could not be written or read for reasons other than its content.
class IoError : public Error {
public:
    using Error::Error;
};

}  // namespace wb
