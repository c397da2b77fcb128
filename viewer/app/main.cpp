// agentvcr-viewer: browse, search, diff and replay the conversations of an agentvcr archive.
// This file parses arguments (QCommandLineParser) and runs the window, or one of the
// non-interactive modes: screenshots for the docs, timings for the benchmark.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QPixmap>
#include <QTableView>
#include <QTimer>
#include <QTreeView>

#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/fleet/uri_secrets.hpp"
#include "agentvcr/store/identity.hpp"
#include "models/conversations_model.hpp"
#include "models/search_model.hpp"
#include "widgets/diff_window.hpp"
#include "widgets/fleet_dialog.hpp"
#include "widgets/main_window.hpp"
#include "widgets/search_panel.hpp"
#include "widgets/step_details.hpp"

namespace {

using agentvcr::viewer::MainWindow;

/// Peak resident memory of this process in KiB (VmHWM), 0 when unknown.
long peakRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      return std::stol(line.substr(6));
    }
  }
  return 0;
}

bool save(QWidget* widget, const QString& path) {
  widget->repaint();
  QApplication::processEvents();
  const bool saved = widget->grab().save(path);
  std::cerr << (saved ? "wrote " : "could not write ") << path.toStdString() << "\n";
  return saved;
}

/// Selects what the options name, or the latest session's first conversation and its first
/// step (or A2A call).
void selectForDisplay(MainWindow& window, const QCommandLineParser& options) {
  if (options.isSet("session")) {
    window.selectSession(options.value("session").toLongLong());
  }
  if (options.isSet("conversation")) {
    window.selectConversation(options.value("conversation").toLongLong());
  } else if (window.conversationsModel()->rowCount() > 0) {
    window.conversationsView()->setCurrentIndex(window.conversationsModel()->index(0, 0));
  }
  if (options.isSet("step")) {
    window.selectStep(options.value("step").toLongLong());
  }
  if (options.isSet("details")) {
    const QStringList tabs = {"step", "tools", "memory", "internal", "http"};
    if (const auto tab = tabs.indexOf(options.value("details")); tab >= 0) {
      window.details()->setCurrentIndex(static_cast<int>(tab));
    } else {
      std::cerr << "agentvcr-viewer: --details takes one of " << tabs.join(", ").toStdString()
                << "\n";
    }
  }
  if (options.isSet("call")) {
    window.selectCall(options.value("call").toLongLong());
  }
}

/// `--help` and `--version` only print, so they must work where there is no display (a CI
/// machine, a man page generator): Qt's offscreen platform stands in when none is configured.
void allowHeadlessInformation(int argc, char** argv) {
  const bool has_display = std::getenv("QT_QPA_PLATFORM") != nullptr ||
                           std::getenv("DISPLAY") != nullptr ||
                           std::getenv("WAYLAND_DISPLAY") != nullptr;
  if (has_display) {
    return;
  }
  for (int i = 1; i < argc; ++i) {
    for (const char* flag : {"--help", "-h", "--help-all", "--version", "-v"}) {
      if (std::strcmp(argv[i], flag) == 0) {
        setenv("QT_QPA_PLATFORM", "offscreen", 0);
        return;
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  allowHeadlessInformation(argc, argv);
  QApplication app(argc, argv);
  QApplication::setApplicationName("agentvcr-viewer");
  QApplication::setApplicationVersion(agentvcr::store::agentvcrVersion());

  QCommandLineParser options;
  options.setApplicationDescription(
      "Browse, search, diff and replay the conversations of an agentvcr archive.");
  options.addHelpOption();
  options.addVersionOption();
  options.addPositionalArgument(
      "archive", "The SQLite archive agentvcr recorded, or a fleet archive's postgresql:// URI.");
  options.addOptions({
      {"session", "Select this session.", "id"},
      {"conversation", "Select this conversation.", "id"},
      {"step", "Select this step.", "id"},
      {"call", "Select this A2A call (of the A2A --conversation).", "id"},
      {"search", "Run this search in the search panel (repeatable).", "text"},
      {"waterfall", "Show the timeline as the waterfall."},
      {"details", "Show this tab of the step's details: step, tools, memory, internal or http.",
       "tab"},
      {"charts", "Show the charts of the selected session."},
      {"diff", "Open a diff of two conversations of the archive.", "left,right"},
      {"screenshot", "Save the main window as PNG and exit.", "file"},
      {"screenshot-diff", "Save the diff window (--diff) as PNG and exit.", "file"},
      {"benchmark",
       "Print how long opening, the first screen, showing the conversation and --search take, "
       "and exit."},
  });
  options.process(app);

  QString path = options.positionalArguments().value(0);
  if (path.isEmpty()) {
    path = QFileDialog::getOpenFileName(nullptr, "Open an agentvcr archive", {},
                                        "Archives (*.sqlite *.db);;All files (*)");
    if (path.isEmpty()) {
      return 0;
    }
  }

  if (agentvcr::fleet::isPostgresUri(path.toStdString())) {
    agentvcr::viewer::FleetDialog* dialog = MainWindow::fleetDialog(nullptr);
    dialog->show();
    dialog->setUri(path);
    dialog->list();
    return QApplication::exec();
  }

  QElapsedTimer clock;
  clock.start();
  std::unique_ptr<MainWindow> window;
  try {
    window = std::make_unique<MainWindow>(path);
  } catch (const std::exception& error) {
    // A connection string given as the archive reaches the message: never its password.
    const std::string message = agentvcr::fleet::withoutPasswords(error.what());
    std::cerr << "agentvcr-viewer: " << message << "\n";
    if (!options.isSet("screenshot") && !options.isSet("benchmark")) {
      QMessageBox::critical(nullptr, "agentvcr-viewer", QString::fromStdString(message));
    }
    return 1;
  }
  const qint64 opened_ms = clock.elapsed();
  if (options.isSet("waterfall")) {
    window->showTimelineTab(1);
  }
  if (options.isSet("charts")) {
    window->showCharts();
  }
  window->show();
  QApplication::processEvents();
  const qint64 conversation_from_ms = clock.elapsed();
  selectForDisplay(*window, options);
  QApplication::processEvents();
  window->repaint();
  const qint64 first_screen_ms = clock.elapsed();

  for (const QString& text : options.values("search")) {  // the last one stays on screen
    window->searchPanel()->textField()->setText(text);
    QElapsedTimer search_clock;
    search_clock.start();
    window->searchPanel()->run();
    if (options.isSet("benchmark")) {
      std::printf("search \"%s\": %lld ms, %d steps\n", qPrintable(text),
                  static_cast<long long>(search_clock.elapsed()),
                  window->searchPanel()->model()->rowCount());
    }
  }
  agentvcr::viewer::DiffWindow* diff = nullptr;
  if (options.isSet("diff")) {
    const QStringList ids = options.value("diff").split(',');
    if (ids.size() == 2) {
      diff = window->openDiff(ids[0].toLongLong(), ids[1].toLongLong());
    }
  }

  if (options.isSet("benchmark")) {
    std::printf(
        "open: %lld ms\nfirst screen: %lld ms\nconversation shown: %lld ms\n"
        "peak RSS: %ld KiB\n",
        static_cast<long long>(opened_ms), static_cast<long long>(first_screen_ms),
        static_cast<long long>(first_screen_ms - conversation_from_ms), peakRssKib());
    return 0;
  }
  if (options.isSet("screenshot") || options.isSet("screenshot-diff")) {
    bool ok = true;
    if (options.isSet("screenshot")) {
      ok = save(window.get(), options.value("screenshot")) && ok;
    }
    if (options.isSet("screenshot-diff")) {
      ok = diff != nullptr && save(diff, options.value("screenshot-diff")) && ok;
    }
    return ok ? 0 : 1;
  }
  return QApplication::exec();
}
