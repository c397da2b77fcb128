// The replay panel's pace, offscreen: the choices it offers (fast, as recorded, scaled by a
// factor), the `agentvcr replay --pace` argument each gives, and a replay it starts at a scaled
// pace, which reports that pace on its status route.

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QtTest>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/net/url.hpp"
#include "agentvcr/protocol/json_text.hpp"
#include "viewer_fixture.hpp"
#include "viewer_test_main.hpp"
#include "widgets/replay_panel.hpp"

namespace agentvcr {
namespace avt = agentvcr::testing;

class ReplayPaceTest : public QObject {
  Q_OBJECT

 private:
  avt::TempDir temp_;
  std::string db_ = temp_.file("demo.sqlite");

  /// What follows --pace in the command line the panel would run; empty without --pace.
  static QString paceArgument(const viewer::ReplayPanel& panel) {
    const QStringList args = panel.replayArguments();
    const auto at = args.indexOf(QStringLiteral("--pace"));
    return at >= 0 && at + 1 < args.size() ? args[at + 1] : QString();
  }

  static void choose(viewer::ReplayPanel& panel, const QString& pace) {
    const int index = panel.paceChoice()->findData(pace);
    QVERIFY2(index >= 0, qPrintable(pace));
    panel.paceChoice()->setCurrentIndex(index);
  }

 private slots:

  void initTestCase() { avt::recordDemoInto(db_, "demo"); }

  void fastIsTheDefaultAndTakesNoFactor() {
    viewer::ReplayPanel panel;
    QCOMPARE(paceArgument(panel), QStringLiteral("fast"));
    QVERIFY(!panel.paceFactor()->isEnabled());
  }

  void theRecordedPaceIsPassedOn() {
    viewer::ReplayPanel panel;
    choose(panel, QStringLiteral("recorded"));
    QCOMPARE(paceArgument(panel), QStringLiteral("recorded"));
    QVERIFY(!panel.paceFactor()->isEnabled());
  }

  void aScaledPacePassesItsFactorOn() {
    viewer::ReplayPanel panel;
    choose(panel, QStringLiteral("factor"));
    QVERIFY(panel.paceFactor()->isEnabled());
    panel.paceFactor()->setValue(0.25);
    QCOMPARE(paceArgument(panel), QStringLiteral("0.25"));
    panel.paceFactor()->setValue(2);
    QCOMPARE(paceArgument(panel), QStringLiteral("2"));
  }

  void aReplayStartedAtAScaledPaceServesAtIt() {
    viewer::ReplayPanel panel;
    panel.setArchive(QString::fromStdString(db_));
    panel.setSelection({1}, {}, QStringLiteral("session 1"));
    choose(panel, QStringLiteral("factor"));
    panel.paceFactor()->setValue(0.5);
    QVERIFY(panel.start());
    // A running replay keeps the pace it started with.
    QVERIFY(!panel.paceChoice()->isEnabled());
    QVERIFY(!panel.paceFactor()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!panel.address().isEmpty(), 20000);
    auto url = net::parseUrl(panel.address().toStdString());
    QVERIFY(url.has_value());
    net::HttpClient client(url->host, url->port);
    const auto status = protocol::parseJson(client.get("/_agentvcr/replay").body);
    QVERIFY(status.value);
    QCOMPARE((*status.value)["pace"]["answers"].get<double>(), 0.5);
    QCOMPARE((*status.value)["pace"]["streams"].get<double>(), 0.5);
    panel.stop();
    QTRY_VERIFY(panel.paceChoice()->isEnabled());
  }
};

AGENTVCR_VIEWER_TEST(ReplayPaceTest, "replay_pace")

}  // namespace agentvcr

#include "replay_pace_test.moc"
