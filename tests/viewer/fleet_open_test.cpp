// File → Open fleet archive… against a real PostgreSQL 15 (ctest's `postgres` fixture): the
// demo shipped into a fleet archive, listed, pulled into the local cache with progress, reused
// the next time without the server, and browsed, exported and diffed in a window of its own.
// A dead server and a wrong URI give an error in the dialog, never a hang or a crash, nor the
// password.

#include <filesystem>

#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QThreadPool>
#include <QtTest>

#include "agentvcr/fleet/fleet_reads.hpp"
#include "agentvcr/fleet/shipper.hpp"
#include "agentvcr/store/schema.hpp"
#include "fleet_fixture.hpp"
#include "models/conversations_model.hpp"
#include "models/fleet_cache.hpp"
#include "models/sessions_model.hpp"
#include "viewer_fixture.hpp"
#include "viewer_test_main.hpp"
#include "widgets/diff_window.hpp"
#include "widgets/fleet_dialog.hpp"
#include "widgets/main_window.hpp"

namespace agentvcr {
namespace avt = agentvcr::testing;

class FleetOpenTest : public QObject {
  Q_OBJECT

 private:
  avt::TempDir temp_;
  std::string db_ = temp_.file("demo.sqlite");
  QString cache_dir_ = QString::fromStdString(temp_.file("cache"));
  std::unique_ptr<avt::FleetDatabase> fleet_;
  std::string uuid_;

  /// Lists the fleet in `dialog` and selects every session.
  static bool listAndSelectAll(viewer::FleetDialog& dialog) {
    QSignalSpy listed(&dialog, &viewer::FleetDialog::listed);
    dialog.list();
    if (!listed.wait(20000)) {
      qWarning() << dialog.status()->text();
      return false;
    }
    dialog.sessionsView()->selectAll();
    return true;
  }

 private slots:

  void initTestCase() {
    const std::string cluster = avt::clusterDir();
    QVERIFY2(!cluster.empty(), "AGENTVCR_TEST_PG_DIR is not set: ctest starts the cluster");
    // The main window's dialog caches under the XDG cache folder: this test's, not the user's.
    qputenv("XDG_CACHE_HOME", QByteArray::fromStdString(temp_.file("xdg-cache")));
    fleet_ = std::make_unique<avt::FleetDatabase>(avt::readLine(cluster + "/uri"));
    avt::recordDemoInto(db_, "demo");
    fleet::ShipOptions options;
    options.db_path = db_;
    options.uri = fleet_->uri();
    fleet::Shipper shipper(options);
    QCOMPARE(shipper.run(), fleet::ShipEnd::CaughtUp);
    uuid_ = store::ArchiveReader(db_).sessions().at(0).uuid;
  }

  void listsTheFleetSessionsWithTheirNode() {
    viewer::FleetDialog dialog(cache_dir_);
    dialog.setUri(QString::fromStdString(fleet_->uri()));
    QVERIFY(listAndSelectAll(dialog));
    viewer::SessionsModel* sessions = dialog.sessionsModel();
    QCOMPARE(sessions->rowCount(), 1);
    QCOMPARE(sessions->session(0).uuid, uuid_);
    const store::SessionRow local = store::ArchiveReader(db_).sessions().at(0);
    QCOMPARE(sessions->data(sessions->index(0, viewer::SessionsModel::Node)).toString(),
             QString::fromStdString(local.node));
    QCOMPARE(sessions->session(0).exchange_count, local.exchange_count);
    QCOMPARE(sessions->session(0).conversation_count, local.conversation_count);
  }

  void opensSessionsIntoTheCacheAndReusesIt() {
    viewer::FleetDialog dialog(cache_dir_);
    dialog.setUri(QString::fromStdString(fleet_->uri()));
    QVERIFY(listAndSelectAll(dialog));
    QSignalSpy opened(&dialog, &viewer::FleetDialog::opened);
    dialog.openSelected();
    QVERIFY(opened.wait(60000));
    const QString archive = opened.at(0).at(0).toString();
    QVERIFY(archive.startsWith(cache_dir_));
    const auto ids = opened.at(0).at(1).value<std::vector<std::int64_t>>();
    QCOMPARE(ids.size(), std::size_t{1});

    store::ArchiveReader pulled(archive.toStdString());
    QCOMPARE(pulled.session(ids[0])->uuid, uuid_);
    QCOMPARE(pulled.counts().steps, store::ArchiveReader(db_).counts().steps);

    // A second opening reads the cache only: it works with the fleet archive gone.
    viewer::FleetCache cache(cache_dir_.toStdString(), fleet_->uri());
    QCOMPARE(cache.path(), archive.toStdString());
    const std::vector<store::SessionRow> listed = fleet::fleetSessions(fleet_->uri());
    QVERIFY(cache.missing(listed).empty());
    store::SessionRow unknown = listed.at(0);
    unknown.uuid = "00000000-0000-4000-8000-000000000000";
    QCOMPARE(cache.missing({listed.at(0), unknown}).size(), std::size_t{1});
    fleet::PgConnection(avt::readLine(avt::clusterDir() + "/uri"))
        .exec("ALTER DATABASE " + fleet_->name() + " ALLOW_CONNECTIONS false");
    std::size_t progress_calls = 0;
    QCOMPARE(cache.open(listed, [&](std::size_t, std::size_t) { ++progress_calls; }), ids);
    QCOMPARE(progress_calls, std::size_t{0});
    fleet::PgConnection(avt::readLine(avt::clusterDir() + "/uri"))
        .exec("ALTER DATABASE " + fleet_->name() + " ALLOW_CONNECTIONS true");
  }

  void theMainWindowOpensTheSessionsInAWindowOfTheirOwn() {
    viewer::MainWindow window(QString::fromStdString(db_));
    viewer::FleetDialog* dialog = window.openFleetArchive(QString::fromStdString(fleet_->uri()));
    QTRY_COMPARE_WITH_TIMEOUT(dialog->sessionsModel() != nullptr, true, 20000);
    dialog->sessionsView()->selectAll();
    QSignalSpy opened(dialog, &viewer::FleetDialog::opened);
    dialog->openSelected();
    QVERIFY(opened.wait(60000));

    viewer::MainWindow* fleet_window = nullptr;
    for (QWidget* widget : QApplication::topLevelWidgets()) {
      auto* candidate = qobject_cast<viewer::MainWindow*>(widget);
      if (candidate != nullptr && candidate != &window && candidate->isVisible()) {
        fleet_window = candidate;
      }
    }
    QVERIFY(fleet_window != nullptr);
    QVERIFY(fleet_window->windowTitle().contains(opened.at(0).at(0).toString()));
    QCOMPARE(fleet_window->conversationsModel()->rowCount(),
             window.conversationsModel()->rowCount());

    // Diff and export work on what was opened.
    const std::int64_t left = avt::conversationTitled(db_, "Please press sw1");
    const std::int64_t right = avt::conversationTitled(db_, "Please press sw3");
    QVERIFY(fleet_window->selectConversation(left));
    QVERIFY(fleet_window->openDiff(left, right) != nullptr);
    QVERIFY(fleet_window->exportSelection(QString::fromStdString(temp_.file("fleet.jsonl"))) > 0);
    fleet_window->close();
  }

  void aSessionPulledWhileItWasShippedIsPulledAgainOnceTheFleetHoldsMore() {
    // A second fleet archive, which first gets the session without its last three exchanges
    // (not indexed yet, as a recorder still writing leaves them).
    const avt::FleetDatabase partial(avt::readLine(avt::clusterDir() + "/uri"));
    const std::string growing = temp_.file("growing.sqlite");
    std::filesystem::copy_file(db_, growing);
    const long long total = avt::sqliteCount(growing, "SELECT count(*) FROM exchanges");
    SQLite::Database(growing, SQLite::OPEN_READWRITE)
        .exec("UPDATE exchanges SET indexed = 0 WHERE seq >= " + std::to_string(total - 3));
    fleet::ShipOptions options;
    options.db_path = growing;
    options.uri = partial.uri();
    QCOMPARE(fleet::Shipper(options).run(), fleet::ShipEnd::CaughtUp);

    viewer::FleetCache cache(cache_dir_.toStdString(), partial.uri());
    const std::string first = cache.path();
    auto ids = cache.open(fleet::fleetSessions(partial.uri()));
    QCOMPARE(store::ArchiveReader(first).session(ids.at(0))->exchange_count, total - 3);

    // The rest is indexed and shipped: the next opening pulls the session again, into a new
    // generation of the cache; the old file stays for the windows that read it.
    store::indexPendingExchanges(growing);
    QCOMPARE(fleet::Shipper(options).run(), fleet::ShipEnd::CaughtUp);
    const std::vector<store::SessionRow> grown = fleet::fleetSessions(partial.uri());
    QCOMPARE(cache.missing(grown).size(), std::size_t{1});
    ids = cache.open(grown);
    QVERIFY(cache.path() != first);
    QVERIFY(std::filesystem::exists(first));
    QCOMPARE(store::ArchiveReader(cache.path()).session(ids.at(0))->exchange_count, total);
    QVERIFY(cache.missing(grown).empty());
    QCOMPARE(viewer::FleetCache(cache_dir_.toStdString(), partial.uri()).path(),
             cache.path());  // a new cache object finds the newest generation
  }

  void closingTheDialogWhilePullingIsSafe() {
    auto* dialog = new viewer::FleetDialog(QString::fromStdString(temp_.file("closing-cache")));
    dialog->setUri(QString::fromStdString(fleet_->uri()));
    QVERIFY(listAndSelectAll(*dialog));
    dialog->openSelected();  // the pull runs on the thread pool, reporting progress
    delete dialog;           // closed at once, its progress dialog with it
    // The pull ends and reports to a dialog that is gone: nothing happens, nothing crashes.
    QThreadPool::globalInstance()->waitForDone(60000);
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents();
  }

  void aDeadServerOrAWrongUriIsAnErrorInTheDialog() {
    viewer::FleetDialog dialog(cache_dir_);
    QSignalSpy failed(&dialog, &viewer::FleetDialog::failed);
    dialog.setUri("not a uri");
    dialog.list();
    QCOMPARE(failed.count(), 1);
    QVERIFY(dialog.status()->text().contains("PostgreSQL URI"));

    dialog.setUri("postgresql://agentvcr:s3cret@127.0.0.1:1/fleet?connect_timeout=2");
    dialog.list();
    QVERIFY(failed.wait(20000));
    QVERIFY(!dialog.status()->text().isEmpty());
    QVERIFY(!dialog.status()->text().contains("s3cret"));  // the password never shows
    QVERIFY(dialog.sessionsModel() == nullptr);
  }

  void aPasswordWithAQuestionMarkNeverShowsInTheDialog() {
    // Over TCP, where the test cluster asks for a password: a wrong one, as libpq reads it.
    viewer::FleetDialog dialog(cache_dir_);
    QSignalSpy failed(&dialog, &viewer::FleetDialog::failed);
    dialog.setUri(QString::fromStdString("postgresql://agentvcr:Qz8?Wx4#Lk2@127.0.0.1:" +
                                         avt::readLine(avt::clusterDir() + "/port") + "/postgres"));
    dialog.list();
    for (const char* piece : {"Qz8", "Wx4", "Lk2"}) {
      QVERIFY2(!dialog.status()->text().contains(piece), qPrintable(dialog.status()->text()));
    }
    QVERIFY(failed.wait(20000));
    QVERIFY(dialog.status()->text().contains("password authentication failed"));
    for (const char* piece : {"Qz8", "Wx4", "Lk2"}) {
      QVERIFY2(!dialog.status()->text().contains(piece), qPrintable(dialog.status()->text()));
    }
  }

  void cleanupTestCase() {
    // A listing reports its failure before its worker has closed the connection: wait for the
    // workers, or the process could end with libpq's TLS state still held (LeakSanitizer).
    QThreadPool::globalInstance()->waitForDone(60000);
  }
};

AGENTVCR_VIEWER_TEST(FleetOpenTest, "fleet_open")

}  // namespace agentvcr

#include "fleet_open_test.moc"
