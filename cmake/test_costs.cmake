# The suite's longest tests, for ctest's scheduling: ctest starts the tests of highest COST first,
# so with -j2 a test of minutes does not start last and run alone at the end of the suite. Without
# this, a clean build directory (CI's) has no timings of a previous run and starts them in the
# order they were declared. Included by ctest after the test groups' discovered tests
# (tb/CMakeLists.txt, TEST_INCLUDE_FILES); a name that no longer exists is ignored. The costs are
# seconds measured in the sanitizer build (scripts/test --sanitize, where the suite is slowest),
# roughly; only their order matters. Refresh them from Testing/Temporary/LastTest.log when the
# longest tests change.
set(flaresim_test_costs
  ReadmeCommands.EveryUsingItCommandRunsAsWritten 90
  AccuracyScript.WritesEverySectionFromItsRuns 40
  E2ESweep.InterruptedSweepResumesWithOnlyTheMissingRuns 33
  E2ERtl.AnAllreduceGivesTheSameStatsWithTheRtlTwinsOnAndOff 23
  E2EOutputs.SigintWhileSimulating 18
  E2EIssHpu.XpulpFoldsGiveTheExpectedResultsInFewerInstructions 17
  E2EAllreduce.DenseInt32Sum16HostsFlareSizeHomeCluster 15
  E2ESweepSlurm.ArrayJobGivesTheLocalPoolsResultsAndResumes 14
  E2EFlareAlgorithms.EveryAlgorithmOnBothHpuModels 10
  IssDiff/Program.MatchesQemu/malloc_churn 10
  E2EHosts.BlocksSharingAStateNeverOverlap 10
  E2ETraceTools.BadUsageIsRefusedByName 9
  E2EAllreduce.DenseInt32Sum16HostsFlareSizeHierFcfs 8
  E2ESweep.RunsEveryPointAndResultsHoldEachRunsStats 7
  ReadmeCommands.TheRunLineGenPrintsRunsAsPrinted 7
  E2EFlareSparseDefault.DenseRunsAreTheSameAsUnderTheDenseRuleAlone 7
  E2ESweepSlurm.CancelledRunStaysPendingAndFailedRunIsReported 6
  E2EIcrc.WrongIcrcsAreDroppedAndEveryTwinGivesTheSameStats 6
  E2EForeignTrace.TablesOfSourceMacsAndSourceIps 6
  IssDiff/Program.MatchesQemu/sieve 6
  E2EGenOptions.BadValuesExitTwoWithTheOptionNamed 5
  CalibrationE2e.IssRunCalibratesNativeRuns 5
  E2ESparseGen.BadValuesExitTwoWithTheOptionNamedAndWriteNothing 5
  FlareSparseFiguresScript.ReplotRedrawsTheThreeFiguresFromTheCsvs 5
  E2EIssHpu.InstructionCacheRefillsEachLineOnceWhenTheHandlerFits 5
  E2EFlareAlgorithms.HostsWithinTheirWindowNeverOverrunTheStates 5
  E2ESweepSlurm.RefusedJobsAreReportedWithWhatWasSubmitted 5
  E2ESweep.FailedRunIsReportedAndRetriedOnRequest 5
  E2ESweepSlurmTask.RunsItsLineOfTheTasksFile 5
  E2ETraceTools.MergeShiftFilterOnKnownTraces 5
)
list(LENGTH flaresim_test_costs n)
math(EXPR last "${n} - 1")
foreach(i RANGE 0 ${last} 2)
  math(EXPR j "${i} + 1")
  list(GET flaresim_test_costs ${i} name)
  list(GET flaresim_test_costs ${j} cost)
  set_tests_properties("${name}" PROPERTIES COST ${cost})
endforeach()
